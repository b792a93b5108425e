import Foundation
import LightboxStore

#if canImport(Glibc)
    import Glibc
#endif

/// Runs a program confined, with its standard input from bytes and its output kept: how
/// Lightbox runs external editors.
///
/// The program starts under `lightbox-confine` (a small C program built beside `lightbox`):
/// it may write only in one folder (Landlock), its processes together may hold the memory
/// limit (the supervisor is their child subreaper and sums them all, `setsid` or not), no file
/// it writes may pass ``Limits/fileBytes`` (its standard output included), and past the time
/// limit, or when it exits, every process it started is killed. Without Landlock (Linux 5.13
/// and later) it does not run at all.
struct LimitedProcess {
    struct Limits: Sendable, Hashable {
        var memoryBytes: Int
        var seconds: Double
        /// The largest file the program may write: a full-size render of a 200-megapixel photo
        /// is well under it.
        var fileBytes = 512 << 20
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

    /// Runs `arguments` (the program first) with `input` on its standard input, able to write
    /// only beneath `writable`. Blocks.
    static func run(
        _ arguments: [String], input: [UInt8], limits: Limits, writable: String, cancellation: Cancellation? = nil
    ) throws -> Outcome {
        if cancellation?.isCancelled == true {
            return Outcome(ending: .cancelled, standardOutput: [], standardErrorTail: "", peakResidentBytes: 0)
        }
        let confine = try confinePath()
        let folder = ProcessFolder.makeTemporaryFolder("run").path
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let (inPath, outPath, errPath, resultPath) = (
            folder + "/stdin", folder + "/stdout", folder + "/stderr", folder + "/outcome"
        )
        // A scratch file: no need for writeAtomically's fsync.
        guard FileManager.default.createFile(atPath: inPath, contents: Data(input)) else {
            throw LibraryError(.storageFailed, "cannot write the editor's request", path: inPath)
        }
        // Whole seconds for the supervisor, within a day: a NaN or infinite limit (a caller's
        // Double) must not reach a trapping conversion.
        let seconds = limits.seconds.isFinite ? Int(min(max(limits.seconds, 1), 86_400).rounded(.up)) : 86_400
        let argv =
            ([
                confine, "\(max(1, limits.memoryBytes))", "\(max(1, seconds))", "\(max(1, limits.fileBytes))", writable,
                "--",
            ]
            + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, inPath, O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, outPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_addopen(&actions, 2, errPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_addopen(&actions, 3, resultPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        // No signal blocked, every one at its default: a thread of Swift's pool or of a
        // dispatch queue blocks most, and a spawned program inherits the mask, so a supervisor
        // spawned from one never heard the SIGTERM that cancels it.
        var none = sigset_t()
        sigemptyset(&none)
        var all = sigset_t()
        sigfillset(&all)
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setsigdefault(&attributes, &all)
        posix_spawnattr_setflags(
            &attributes, Int16(POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        posix_spawnattr_setpgroup(&attributes, 0)
        var environment = ProcessInfo.processInfo.environment
        // Temporary files go where the program may write.
        environment["TMPDIR"] = writable
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { envp.forEach { free($0) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, confine, &actions, &attributes, argv, envp)
        guard spawned == 0 else {
            throw LibraryError(.invalidRequest, "cannot start \(confine): \(String(cString: strerror(spawned)))")
        }

        // The supervisor keeps the limits; this loop only passes a cancellation on, and stops
        // a supervisor that outlives the time limit by far (it never should).
        let start = Date()
        var status: Int32 = 0
        var told = false
        while true {
            let done = waitpid(pid, &status, WNOHANG)
            if done == pid || (done < 0 && errno != EINTR) { break }
            if cancellation?.isCancelled == true && !told {
                kill(pid, SIGTERM)
                told = true
            }
            if Date().timeIntervalSince(start) > limits.seconds + 30 { kill(-pid, SIGKILL) }
            usleep(10_000)
        }
        let output = (try? FileIO.contents(ofFileAt: outPath, limit: 16 << 20)) ?? nil
        let errors = (try? FileIO.contents(ofFileAt: errPath, limit: 16 << 20)) ?? nil
        let tail = String(decoding: (errors ?? []).suffix(2000), as: UTF8.self).trimmingCharacters(
            in: .whitespacesAndNewlines)
        let result = String(
            decoding: ((try? FileIO.contents(ofFileAt: resultPath, limit: 4096)) ?? nil) ?? [], as: UTF8.self)
        let words = result.split(whereSeparator: \.isWhitespace)
        // Cancelled before the supervisor set its handler (it installs it before it starts the
        // program): nothing ran.
        if told && status & 0x7F == SIGTERM {
            return Outcome(ending: .cancelled, standardOutput: [], standardErrorTail: "", peakResidentBytes: 0)
        }
        guard status & 0x7F == 0, (status >> 8) & 0xFF == 0, let first = words.first else {
            throw LibraryError(
                .invalidRequest, "cannot run \(arguments[0]) confined\(tail.isEmpty ? "" : ": " + tail)")
        }
        let value = words.count > 1 ? Int32(words[1]) : nil
        let ending: Outcome.Ending =
            switch first {
            case "exited": .exited(value ?? 0)
            case "signalled": .signalled(value ?? 0)
            case "timedOut": .timedOut
            case "outOfMemory": .outOfMemory
            default: .cancelled
            }
        let peak = words.firstIndex(of: "peak").flatMap { $0 + 1 < words.count ? Int(words[$0 + 1]) : nil } ?? 0
        return Outcome(ending: ending, standardOutput: output ?? [], standardErrorTail: tail, peakResidentBytes: peak)
    }

    /// `lightbox-confine`: `$LIGHTBOX_CONFINE`, else beside the running program (or, for tests,
    /// in the folder above it), else on the `PATH`.
    static func confinePath() throws -> String {
        let name = "lightbox-confine"
        if let given = ProcessInfo.processInfo.environment["LIGHTBOX_CONFINE"], !given.isEmpty { return given }
        let executable = URL(
            fileURLWithPath: (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
                ?? CommandLine.arguments[0])
        var candidates = [
            executable.deletingLastPathComponent(), executable.deletingLastPathComponent().deletingLastPathComponent(),
        ]
        .map { $0.appendingPathComponent(name).path }
        candidates += (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":").map { "\($0)/\(name)" }
        guard let found = candidates.first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else {
            throw LibraryError(
                .invalidRequest,
                "cannot run an external editor: \(name), which confines it, is not beside \(executable.path) nor on the "
                    + "PATH (set LIGHTBOX_CONFINE)")
        }
        return found
    }
}
