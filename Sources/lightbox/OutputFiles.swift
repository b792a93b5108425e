import Foundation
import Lightbox
import LightboxMetadata

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
                PathString.stem($0) + "." + `extension`
            }
            return (folder, try folder.plan(names))
        } catch {
            throw CommandError(error.description)
        }
    }

    /// The asset `id` names (or starts), and the file `out` planned for it, checked before any
    /// work: never one of the asset's own files, and an existing file only with `overwrite`.
    static func plan(asset id: String, out: String, overwrite: Bool, in library: PhotoLibrary) async throws -> (
        asset: Asset, folder: OutputFolder, planned: String
    ) {
        let id = try Names(library: library).asset(id)
        guard let asset = try await library.asset(withLocalIdentifier: id) else {
            throw CommandError("no asset has the identifier \(id) in \(library.url.path)")
        }
        var inputs: [String] = []
        for resource in asset.resources { inputs.append(try await library.fileURL(for: resource).path) }
        let file = URL(fileURLWithPath: out)
        do {
            let folder = try OutputFolder(
                path: file.deletingLastPathComponent().path, inputs: inputs, overwrite: overwrite)
            return (asset, folder, try folder.plan([file.lastPathComponent], whenTaken: .refuse)[0])
        } catch {
            throw CommandError(error.description)
        }
    }
}
