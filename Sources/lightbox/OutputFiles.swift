import Foundation
import Lightbox

/// How the commands that make files from files (`thumbnail`, `render`) name and place them.
enum OutputFiles {
    /// The folder `out` (made when missing) and one planned path per input, named after the
    /// input's base name with `extension`, checked before any work: an output that would be an
    /// input is refused, a name taken gets a free one unless `overwrite`.
    static func plan(
        _ inputs: [String], into out: String, extension: String, overwrite: Bool
    ) throws -> (folder: OutputFolder, outputs: [String]) {
        do {
            let folder = try OutputFolder(path: out, inputs: inputs, overwrite: overwrite)
            let names = inputs.map {
                (($0 as NSString).lastPathComponent as NSString).deletingPathExtension + "." + `extension`
            }
            return (folder, try folder.plan(names))
        } catch {
            throw CommandError(error.description)
        }
    }
}
