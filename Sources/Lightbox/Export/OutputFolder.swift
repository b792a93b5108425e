import Foundation
import LightboxMetadata
import LightboxStore
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The folder a command or an export writes new files into, and the rule every writer of
/// files keeps: it never writes over, renames onto or removes a file it did not create in
/// this run.
///
/// - An output that would be one of the run's inputs (the same path, a link to it, a hard
///   link: the same device and inode) is refused when the names are planned, before any work,
///   with an error that names both. `overwrite` never lifts this.
/// - An output folder inside a Lightbox library is refused: the library's files are its own.
/// - A name already taken on disk gets a free one (`IMG_0001-1.jpg`, `IMG_0001-2.jpg`...), or an
///   error when the caller named the file itself, unless `overwrite` says to replace it.
/// - A name planned twice in one run gets a free one too: no output replaces another.
/// - Each file is written to a hidden temporary file beside it and then put in place with
///   `link`, which fails rather than replace a file that appeared since the plan (the next free
///   name is taken then), so that a reader never sees a half-written file.
///
/// ```swift
/// let folder = try OutputFolder(path: "thumbs", inputs: files)
/// let outputs = try folder.plan(files.map { base($0) + ".jpg" })   // refused before any work
/// let written = try folder.write(bytes, to: outputs[0])            // the path it has in the end
/// ```
public final class OutputFolder: Sendable {
    /// What a planned name that is taken on disk gets, without `overwrite`.
    public enum WhenTaken: Sendable {
        /// The next free name: `NAME-1.EXT`, `NAME-2.EXT`...
        case freeName
        /// An error: the caller named the file itself.
        case refuse
    }

    /// The folder, as given.
    public let path: String
    /// Whether a file that exists, and is not an input, may be replaced.
    public let overwrite: Bool

    private struct Identity: Hashable {
        var device: UInt64
        var inode: UInt64
    }

    /// The inputs by identity and by absolute path, each with the path the caller gave.
    private let inputsByIdentity: [Identity: String]
    private let inputsByPath: [String: String]
    /// The names planned or written in this run.
    private let claimed = Mutex(FreeNames())

    /// Makes the folder when it is missing. `inputs` are the files the run reads: no output
    /// may land on one of them.
    public init(path: String, inputs: [String], overwrite: Bool = false) throws(LibraryError) {
        self.path = path
        self.overwrite = overwrite
        var byIdentity: [Identity: String] = [:]
        var byPath: [String: String] = [:]
        for input in inputs {
            byPath[Self.absolute(input)] = input
            if let identity = Self.identity(input) { byIdentity[identity] = input }
        }
        inputsByIdentity = byIdentity
        inputsByPath = byPath
        if let library = PhotoLibrary.enclosingLibrary(of: path) {
            throw LibraryError(
                .outputRefused,
                "the output folder is inside the library \(library): Lightbox writes only its own files there; "
                    + "choose a folder outside it",
                path: path)
        }
        do {
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        } catch {
            throw LibraryError(.storageFailed, "cannot make the folder: \(error.localizedDescription)", path: path)
        }
    }

    /// The paths to write `names` to, in order, checked before any work: each is free, or
    /// taken by a file `overwrite` may replace. Throws, naming both files, when one would be an
    /// input, and when a name is taken and `whenTaken` is ``WhenTaken/refuse``.
    public func plan(_ names: [String], whenTaken: WhenTaken = .freeName) throws(LibraryError) -> [String] {
        try claimed.withLock { claimed throws(LibraryError) -> [String] in
            var planned: [String] = []
            for name in names {
                let candidate = join(name)
                if let input = input(at: candidate) {
                    throw LibraryError(
                        .outputRefused,
                        "this output would replace the input \(input); nothing was written: choose another output folder",
                        path: candidate)
                }
                let exists = Self.exists(candidate)
                if exists && !overwrite && whenTaken == .refuse {
                    throw LibraryError(
                        .outputRefused, "the file exists; nothing was written (--overwrite replaces it)",
                        path: candidate)
                }
                if claimed.contains(name) || (exists && !overwrite) {
                    planned.append(join(claimed.numbered(name, available: isFree)))
                } else {
                    claimed.insert(name)
                    planned.append(candidate)
                }
            }
            return planned
        }
    }

    /// Writes `bytes` to a planned path and returns the path written, which is the next free
    /// name when another program took the planned one since. With `syncing`, the file is on the
    /// disk before it has its name.
    @discardableResult
    public func write(
        _ bytes: [UInt8], to planned: String, syncing: Bool = true, whenTaken: WhenTaken = .freeName
    ) throws -> String {
        try write(to: planned, whenTaken: whenTaken) { temporary in
            let file = try DurableFile(creating: temporary, permissions: 0o644, bypassingCache: false)
            try bytes.withUnsafeBytes { try file.append($0) }
            try file.finish(syncing: syncing)
        }
    }

    /// Calls `body` with a new temporary file's path beside `planned` to write, then gives the
    /// file its name; on any failure the temporary file is removed and nothing else changed.
    /// What `body` throws is thrown as it is. A name another program took since the plan gets
    /// the next free one, or an error with ``WhenTaken/refuse``.
    @discardableResult
    public func write(
        to planned: String, whenTaken: WhenTaken = .freeName, _ body: (String) throws -> Void
    ) throws -> String {
        let name = PathString.lastComponent(planned)
        let temporary = join(".\(name).\(UUID().uuidString).tmp")
        defer { unlink(temporary) }
        try body(temporary)
        if overwrite {
            // Planned against the inputs already; checked again in case a link appeared since.
            if let input = input(at: planned) {
                throw LibraryError(
                    .outputRefused, "the output would replace the input \(input); nothing was written", path: planned)
            }
            guard rename(temporary, planned) == 0 else { throw FileIO.posixError("renaming into place", planned) }
            return planned
        }
        var target = planned
        while true {
            if link(temporary, target) == 0 { return target }
            switch errno {
            case EEXIST:
                // Another program made a file of this name since the plan: the next free one.
                if whenTaken == .refuse {
                    throw LibraryError(.outputRefused, "the file exists; nothing was written", path: target)
                }
                target = claimed.withLock { join($0.numbered(name, available: isFree)) }
            case EPERM, ENOTSUP, EOPNOTSUPP, EXDEV, EMLINK:
                // A file system without hard links (FAT, exFAT): the name is made ours first, empty,
                // and the temporary file renamed onto it.
                let fd = open(target, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
                if fd < 0 {
                    if errno == EEXIST && whenTaken == .freeName { continue }
                    throw FileIO.posixError("creating", target)
                }
                close(fd)
                guard rename(temporary, target) == 0 else {
                    let error = FileIO.posixError("renaming into place", target)
                    unlink(target)
                    throw error
                }
                return target
            default:
                throw FileIO.posixError("naming", target)
            }
        }
    }

    // MARK: - Names and identities

    private func join(_ name: String) -> String {
        path.hasSuffix("/") ? path + name : path + "/" + name
    }

    /// The input a path is, by its absolute path or by the file it leads to.
    private func input(at candidate: String) -> String? {
        if let input = inputsByPath[Self.absolute(candidate)] { return input }
        return Self.identity(candidate).flatMap { inputsByIdentity[$0] }
    }

    /// Whether a free name's search may take `name`: not an input, nor on disk unless
    /// `overwrite` (so that a run made again replaces the same files).
    private func isFree(_ name: String) -> Bool {
        let path = join(name)
        return input(at: path) == nil && (overwrite || !Self.exists(path))
    }

    private static func absolute(_ path: String) -> String {
        URL(fileURLWithPath: path).standardizedFileURL.path
    }

    /// The device and inode of the file a path leads to (through links), or nil.
    private static func identity(_ path: String) -> Identity? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return Identity(device: UInt64(info.st_dev), inode: UInt64(info.st_ino))
    }

    /// Whether anything has this name, a dangling link included.
    private static func exists(_ path: String) -> Bool {
        var info = stat()
        return lstat(path, &info) == 0
    }
}
