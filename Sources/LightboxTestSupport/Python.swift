import Foundation

/// CPython as an oracle: its standard library computes what Lightbox computes (hashlib's
/// scrypt, for passwords) by another implementation.
public enum Python {
    /// What `script` printed, run with `arguments`; throws when it fails.
    /// `interpreter`: a Python of a venv's (nil: the first `python3` on the path).
    public static func output(_ script: String, _ arguments: [String] = [], interpreter: String? = nil) throws
        -> String
    {
        let (data, status) = try Tool.run(
            interpreter ?? "/usr/bin/env", (interpreter == nil ? ["python3"] : []) + ["-c", script] + arguments)
        guard status == 0 else { throw PythonError(status: status) }
        return String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    struct PythonError: Error {
        var status: Int32
    }
}
