import ArgumentParser
import Dispatch
import Foundation
import Lightbox
import LightboxImaging

struct ThumbnailCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "thumbnail",
        abstract: "Make thumbnails of files on disk, without a library, on every core.",
        discussion: """
            Each thumbnail is named after its file's base name (IMG_0001.HEIC gives IMG_0001.jpg; \
            a name taken, by a file in --out or by a second IMG_0001 from another folder, gives \
            IMG_0001-1.jpg), upright, in sRGB, never enlarged. Nothing is written over: a thumbnail \
            that would replace one of the files read stops the command before any work, and \
            --overwrite replaces other files only. A file that fails gets its error and the others \
            go on; the exit status is 1 when any failed.
            """)

    @Argument(help: "Image files (folders are read recursively).")
    var files: [String]

    @OptionGroup var sizeOptions: ThumbnailSizeOptions

    @Option(help: "jpeg or webp.")
    var format: String = EncodedImageFormat.jpeg.rawValue

    @Option(help: ArgumentHelp("The folder to write into (made if missing).", valueName: "DIR"))
    var out: String

    @Flag(help: "Replace files of the same names in --out (never a file being read).")
    var overwrite = false

    @Option(
        help:
            "How many threads to use: files worked on at once, and the most threads the last files' tiles are shared among (default: one per processor)."
    )
    var jobs: Int?

    @Flag(help: "Print one JSON line per file.")
    var json = false

    func run() async throws {
        if let jobs, jobs < 1 { throw ValidationError("--jobs must be 1 or more, not \(jobs)") }
        guard let encoding = EncodedImageFormat(rawValue: format) else {
            throw ValidationError("--format must be jpeg or webp, not \(format)")
        }
        let options = RenderOptions(
            width: sizeOptions.size.width, height: sizeOptions.size.height, contentMode: sizeOptions.contentMode,
            format: encoding)
        let (paths, unreadable) = MetadataCommand.files(files, excluding: out, json: json)
        let (folder, outputs) = try OutputFiles.plan(
            paths, into: out, extension: encoding.filenameExtension, overwrite: overwrite)
        var failed = unreadable
        // One file per thread at a time. Once fewer files than threads are left, a HEIF grid's
        // tiles are shared with the threads no file holds.
        let threads = max(1, jobs ?? ProcessInfo.processInfo.activeProcessorCount)
        ImageFile.processorLimit = threads
        await withTaskGroup(of: ThumbnailLine.self) { group in
            var next = 0
            func addNext() {
                guard next < paths.count else { return }
                let (path, output) = (paths[next], outputs[next])
                next += 1
                group.addTask { await Self.render(path, options: options, to: output, in: folder) }
            }
            for _ in 0..<threads { addNext() }
            for await line in group {
                if line.error != nil { failed += 1 }
                if json {
                    Output.jsonLine(line)
                } else if let error = line.error {
                    Output.message("\(line.path): error: \(error)")
                } else {
                    Output.line("\(line.output ?? "")  \(line.pixelWidth ?? 0)x\(line.pixelHeight ?? 0)")
                }
                addNext()
            }
        }
        if failed > 0 { throw ExitCode(1) }
    }

    static func render(
        _ path: String, options: RenderOptions, to output: String, in folder: OutputFolder
    ) async -> ThumbnailLine {
        await withCheckedContinuation { continuation in
            DispatchQueue.global(qos: .userInitiated).async {
                do {
                    let image = try ImageFile.thumbnail(ofFileAt: path, options: options)
                    // Put in place whole, but not fsynced: Foundation's atomic write fsynced each
                    // thumbnail, a wait for the disk per file that neither vipsthumbnail nor
                    // Pillow makes. A thumbnail a crash loses is made again by the next run.
                    let written = try folder.write(image.bytes, to: output, syncing: false)
                    continuation.resume(
                        returning: ThumbnailLine(
                            path: path, output: written, pixelWidth: image.pixelWidth, pixelHeight: image.pixelHeight))
                } catch let error as ImagingError {
                    continuation.resume(returning: ThumbnailLine(path: path, error: error.message))
                } catch let error as LibraryError {
                    continuation.resume(
                        returning: ThumbnailLine(path: path, error: "cannot write \(output): \(error.message)"))
                } catch {
                    continuation.resume(
                        returning: ThumbnailLine(
                            path: path, error: "cannot write \(output): \(error.localizedDescription)"))
                }
            }
        }
    }
}

/// One line of `lightbox thumbnail --json`.
struct ThumbnailLine: Encodable, Sendable {
    var path: String
    var output: String?
    var pixelWidth: Int?
    var pixelHeight: Int?
    var error: String?
}
