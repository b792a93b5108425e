#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Opening a file to read, for every reader of files a person or a client names: only a
/// regular file is read. A named pipe's open waits for a writer for ever, and a device has
/// no end, so a file is opened without waiting and looked at before a byte is read.
public enum RegularFile {
    /// Why a path was not opened, in words for a message that names the file.
    public struct Refusal: Error, Sendable {
        /// "cannot open the file (Permission denied)", "not a regular file but a named pipe".
        public var reason: String
    }

    /// A descriptor of the regular file at `path`, which the caller closes, and its size.
    public static func open(_ path: String) throws(Refusal) -> (descriptor: Int32, size: Int) {
        #if canImport(Glibc)
            let descriptor = Glibc.open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        #else
            let descriptor = Darwin.open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        #endif
        guard descriptor >= 0 else {
            throw Refusal(reason: "cannot open the file (\(String(cString: strerror(errno))))")
        }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else {
            let reason = String(cString: strerror(errno))
            close(descriptor)
            throw Refusal(reason: "cannot read the file's size (\(reason))")
        }
        guard status.st_mode & S_IFMT == S_IFREG else {
            close(descriptor)
            throw Refusal(reason: "not a regular file but \(kind(of: status.st_mode))")
        }
        // Reads of a regular file never wait: the flag only spared the open.
        _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) & ~O_NONBLOCK)
        return (descriptor, Int(status.st_size))
    }

    /// What a file of this mode is, in words: "a named pipe", "a folder".
    public static func kind(of mode: mode_t) -> String {
        switch mode & S_IFMT {
        case S_IFREG: "a regular file"
        case S_IFDIR: "a folder"
        case S_IFIFO: "a named pipe"
        case S_IFCHR, S_IFBLK: "a device"
        case S_IFSOCK: "a socket"
        default: "not a file"
        }
    }
}
