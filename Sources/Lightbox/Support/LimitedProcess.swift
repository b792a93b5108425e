import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Runs a program under a memory limit and a time limit, with its standard input from bytes
/// and its output kept: how Lightbox runs external editors.
///
/// The program starts through `/bin/sh`, which sets `ulimit -d` (the data segment: heap and
/// private mappings, so allocations past the limit fail) and execs it, in a process group of
/// its own. Lightbox watches it every 10 ms: past the time limit, or with a resident size above
/// the memory limit, the whole group is killed.
struct LimitedProcess {
    struct Limits: Sendable, Hashable {
        var memoryBytes: Int
        var seconds: Double
    }

    /// How a run ended.
    struct Outcome: Sendable {
        enum Ending: Sendable, Hashable {
            case exited(Int32)
            case signalled(Int32)
            /// Killed by Lightbox: it ran past its time limit.
            case timedOut
            /// Killed by Lightbox: its resident memory passed the limit.
            case outOfMemory
            /// Killed by Lightbox: the caller cancelled it.
            case cancelled
        }

        var ending: Ending
        var standardOutput: [UInt8]
        /// The end of its standard error, for messages.
        var standardErrorTail: String
        var peakResidentBytes: Int
    }

    /// Set to stop a run from another thread.
    final class Cancellation: @unchecked Sendable {
        private let lock = NSLock()
        private var flag = false
        var isCancelled: Bool { lock.withLock { flag } }
        func cancel() { lock.withLock { flag = true } }
    }

    /// Runs `arguments` (the program first) with `input` on its standard input. Blocks.
    static func run(
        _ arguments: [String], input: [UInt8], limits: Limits, cancellation: Cancellation? = nil
    ) throws -> Outcome {
        let folder = ProcessFolder.makeTemporaryFolder("run").path
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let (inPath, outPath, errPath) = (folder + "/stdin", folder + "/stdout", folder + "/stderr")
        // A scratch file: no need for writeAtomically's fsync.
        guard FileManager.default.createFile(atPath: inPath, contents: Data(input)) else {
            throw LibraryError(.storageFailed, "cannot write the editor's request", path: inPath)
        }

        let kilobytes = max(1, limits.memoryBytes / 1024)
        let script = "ulimit -d \(kilobytes) 2>/dev/null; exec \"$0\" \"$@\""
        let argv = (["/bin/sh", "-c", script] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, inPath, O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, outPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_addopen(&actions, 2, errPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETPGROUP))
        posix_spawnattr_setpgroup(&attributes, 0)
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, "/bin/sh", &actions, &attributes, argv, environ)
        guard spawned == 0 else {
            throw LibraryError(.invalidRequest, "cannot start \(arguments[0]): \(String(cString: strerror(spawned)))")
        }

        let start = Date()
        var status: Int32 = 0
        var killedFor: Outcome.Ending?
        var peak = 0
        while true {
            let done = waitpid(pid, &status, WNOHANG)
            if done == pid { break }
            if done < 0 && errno != EINTR { break }
            let resident = residentBytes(pid)
            peak = max(peak, resident)
            if killedFor == nil {
                if Date().timeIntervalSince(start) > limits.seconds {
                    killedFor = .timedOut
                } else if resident > limits.memoryBytes {
                    killedFor = .outOfMemory
                } else if cancellation?.isCancelled == true {
                    killedFor = .cancelled
                }
                if killedFor != nil { kill(-pid, SIGKILL) }
            }
            usleep(10_000)
        }
        // Whatever the program left running in its group goes with it.
        kill(-pid, SIGKILL)
        let output = (try? FileIO.contents(ofFileAt: outPath, limit: 16 << 20)) ?? nil
        let errors = (try? FileIO.contents(ofFileAt: errPath, limit: 16 << 20)) ?? nil
        let tail = String(decoding: (errors ?? []).suffix(2000), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        let ending: Outcome.Ending
        if let killedFor {
            ending = killedFor
        } else if status & 0x7F == 0 {
            ending = .exited((status >> 8) & 0xFF)
        } else {
            ending = .signalled(status & 0x7F)
        }
        return Outcome(ending: ending, standardOutput: output ?? [], standardErrorTail: tail, peakResidentBytes: peak)
    }

    /// A running process's resident memory, from `/proc`; 0 when unknown.
    private static func residentBytes(_ pid: pid_t) -> Int {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
            let line = text.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }),
            let kilobytes = Int(line.split(separator: " ").dropFirst().first ?? "")
        else { return 0 }
        return kilobytes * 1024
    }
}
