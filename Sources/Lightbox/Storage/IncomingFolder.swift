import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// One open library's own folder of files in flight, in `originals/.incoming/`: imports write
/// an original there before renaming it into place, change requests stage their data there.
///
/// Several processes (an import, `lightbox ls`, a server) may have a library open at once, and
/// each clears what crashed ones left when it opens. Clearing the whole of `.incoming/`, as
/// Lightbox did, removed the files another process was writing, and its import failed them.
/// So each open library works in `.incoming/ID/` and holds an exclusive `flock` on
/// `.incoming/ID.lock` while it lives: a folder whose lock can be taken belongs to no live
/// process and is removed, with its lock file, by the next library to open.
final class IncomingFolder: Sendable {
    /// The folder this library writes in.
    let path: String
    private let lockPath: String
    /// The lock's descriptor, held open (and locked) until `deinit`.
    private let lock: Int32

    /// Makes and locks a folder of its own in `parent`.
    init(parent: String) throws {
        try FileIO.makeDirectory(parent)
        while true {
            let name = UUID().uuidString
            let lockPath = parent + "/" + name + ".lock"
            let fd = open(lockPath, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
            guard fd >= 0 else { throw FileIO.posixError("creating a lock", lockPath) }
            guard flock(fd, LOCK_EX) == 0 else {
                let error = FileIO.posixError("locking", lockPath)
                close(fd)
                throw error
            }
            // Another library's sweep may have taken the lock file for a dead one's between the
            // open and the lock, and removed it: then this lock guards nothing, and it starts over.
            var held = stat()
            var named = stat()
            guard fstat(fd, &held) == 0, stat(lockPath, &named) == 0, held.st_ino == named.st_ino,
                held.st_dev == named.st_dev
            else {
                close(fd)
                continue
            }
            self.path = parent + "/" + name
            self.lockPath = lockPath
            self.lock = fd
            do {
                try FileIO.makeDirectory(path)
            } catch {
                unlink(lockPath)
                close(fd)
                throw error
            }
            return
        }
    }

    deinit {
        try? FileManager.default.removeItem(atPath: path)
        unlink(lockPath)
        close(lock)
    }

    /// Removes what libraries no longer open left in `parent`: folders whose lock can be taken
    /// (their process ended, or crashed), folders without a lock file, and the loose files
    /// earlier versions of Lightbox wrote there. Folders locked by a live process stay.
    static func removeLeftovers(in parent: String) {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: parent) else { return }
        let locks = Set(names.filter { $0.hasSuffix(".lock") }.map { String($0.dropLast(5)) })
        for name in names where !name.hasSuffix(".lock") {
            let path = parent + "/" + name
            var info = stat()
            guard lstat(path, &info) == 0 else { continue }
            if (info.st_mode & S_IFMT) != S_IFDIR || !locks.contains(name) {
                // A loose file of an earlier version, or a folder whose lock is gone.
                if (info.st_mode & S_IFMT) == S_IFDIR {
                    try? FileManager.default.removeItem(atPath: path)
                } else {
                    unlink(path)
                }
            }
        }
        for name in locks {
            let lockPath = parent + "/" + name + ".lock"
            let fd = open(lockPath, O_RDWR | O_CLOEXEC)
            guard fd >= 0 else { continue }
            defer { close(fd) }
            // Taken at once: no live library holds it.
            guard flock(fd, LOCK_EX | LOCK_NB) == 0 else { continue }
            try? FileManager.default.removeItem(atPath: parent + "/" + name)
            unlink(lockPath)
        }
    }
}
