import Foundation
import LightboxMetadata

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A folder that belongs to one live process, in a parent shared by several: an open library's
/// folder of files in flight in `originals/.incoming/`, and a process's scratch folder in the
/// system's temporary folder (editors' renders, Live Photo frames, a confined run's files).
///
/// Several processes (an import, `lightbox ls`, a server) may have a library open at once, and
/// each clears what crashed ones left when it opens. Clearing the whole of `.incoming/`, as
/// Lightbox did, removed the files another process was writing, and its import failed them.
/// So each works in `PARENT/ID/` and holds an exclusive `flock` on `PARENT/ID.lock` while it
/// lives: a folder whose lock can be taken belongs to no live process and is removed, with its
/// lock file, by the next process to sweep the parent.
package final class ProcessFolder: Sendable {
    /// The folder this library writes in.
    package let path: String
    private let lockPath: String
    /// The lock's descriptor, held open (and locked) until `deinit`.
    private let lock: Int32

    /// Makes and locks a folder of its own in `parent`; `keep` decides at the end whether it
    /// stays for the next sweep.
    package init(parent: String, keep: @escaping @Sendable (String) -> Bool = { _ in false }) throws {
        self.keep = keep
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

    /// Removes the folder, unless `keep` says what is in it must outlive this process: then
    /// only the lock goes, and the next sweep settles it.
    deinit {
        if !keep(path) { try? FileManager.default.removeItem(atPath: path) }
        unlink(lockPath)
        close(lock)
    }

    /// Whether the folder must stay for the next sweep when this process lets it go.
    private let keep: @Sendable (String) -> Bool

    /// The name of the folder in `parent`, which names its process's lock: what another process
    /// asks ``isHeld(_:in:)`` of.
    package var name: String { PathString.lastComponent(path) }

    /// Whether the process that made folder `name` in `parent` still lives: its lock is held
    /// (by this process too). A lock file gone, or free, is a process that ended.
    package static func isHeld(_ name: String, in parent: String) -> Bool {
        guard !name.isEmpty, !name.contains("/") else { return false }
        let fd = open(parent + "/" + name + ".lock", O_RDWR | O_CLOEXEC)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        // Another descriptor's lock, even this process's own, refuses this one.
        guard flock(fd, LOCK_SH | LOCK_NB) == 0 else { return errno == EWOULDBLOCK || errno == EINTR }
        flock(fd, LOCK_UN)
        return false
    }

    /// Removes what processes no longer running left in `parent`: folders whose lock can be
    /// taken (their process ended, or crashed), folders without a lock file, and the loose files
    /// earlier versions of Lightbox wrote there. Folders locked by a live process stay.
    /// `settle` is given each dead folder before it goes, to act on what it says was in flight.
    package static func removeLeftovers(in parent: String, settle: (String) -> Void = { _ in }) {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: parent) else { return }
        let locks = Set(names.filter { $0.hasSuffix(".lock") }.map { String($0.dropLast(5)) })
        for name in names where !name.hasSuffix(".lock") {
            let path = parent + "/" + name
            var info = stat()
            guard lstat(path, &info) == 0 else { continue }
            if (info.st_mode & S_IFMT) != S_IFDIR || !locks.contains(name) {
                // A loose file of an earlier version, or a folder whose lock is gone.
                if (info.st_mode & S_IFMT) == S_IFDIR {
                    settle(path)
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
            settle(parent + "/" + name)
            try? FileManager.default.removeItem(atPath: parent + "/" + name)
            unlink(lockPath)
        }
    }
}

extension ProcessFolder {
    /// This process's scratch folder in the system's temporary folder, made on first use, when
    /// the scratch folders of processes that ended (killed editors' renders among them) go.
    package static let scratch: ProcessFolder? = {
        guard let parent = scratchParent else { return nil }
        removeLeftovers(in: parent)
        guard let folder = try? ProcessFolder(parent: parent) else { return nil }
        // A static is never deinitialised: the folder goes when the process exits normally.
        atexit { ProcessFolder.scratch?.removeNow() }
        return folder
    }()

    /// This user's folder of scratch folders, made when missing; nil when the name is taken by
    /// something else than this user's own private folder (a link another user made in /tmp).
    private static var scratchParent: String? {
        let parent = FileManager.default.temporaryDirectory.path + "/lightbox-\(getuid())"
        _ = mkdir(parent, 0o700)
        var info = stat()
        guard lstat(parent, &info) == 0, (info.st_mode & S_IFMT) == S_IFDIR, info.st_uid == getuid(),
            info.st_mode & 0o077 == 0
        else { return nil }
        return parent
    }

    /// Removes the scratch folders of processes that ended: a library does at open, so that an
    /// editor's render killed with its process does not stay in the temporary folder.
    package static func removeScratchLeftovers() {
        guard let parent = scratchParent else { return }
        removeLeftovers(in: parent)
    }

    private func removeNow() {
        try? FileManager.default.removeItem(atPath: path)
        unlink(lockPath)
    }

    /// A new empty folder for one piece of work, inside this process's scratch folder (or the
    /// system's temporary folder, where that cannot be made); the caller removes it when done,
    /// and the next process to start sweeps it if this one is killed first.
    package static func makeTemporaryFolder(_ label: String) -> URL {
        let parent = scratch?.path ?? FileManager.default.temporaryDirectory.path
        let folder = URL(fileURLWithPath: parent).appendingPathComponent("\(label)-\(UUID().uuidString)")
        try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }
}
