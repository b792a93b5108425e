import CryptoExtras
import Foundation

/// Passwords hashed with scrypt (BoringSSL's, through swift-crypto, already Lightbox's): memory-
/// hard, so a stolen accounts file costs an attacker memory as well as time for every guess, and
/// with no 72-byte limit as bcrypt has. Stored as a PHC string,
/// `$scrypt$ln=17,r=8,p=1$SALT$HASH` (base64 without padding), so that a later cost reads back.
///
/// At the default cost (2^17 rounds of 1 KiB blocks: 128 MiB) a hash takes a few hundred
/// milliseconds; the server lets two run at once (``SignInThrottle``).
public struct PasswordHasher: Sendable {
    /// log2 of scrypt's rounds (N).
    public var logRounds: Int
    public var blockSize = 8
    public var parallelism = 1

    /// OWASP's recommendation: N = 2^17, r = 8, p = 1.
    public static let standard = PasswordHasher(logRounds: 17)

    public init(logRounds: Int) {
        self.logRounds = min(max(logRounds, 1), 20)
    }

    /// The longest password taken, in UTF-8 bytes: hashing work is bounded whatever is sent.
    public static let maximumPasswordLength = 1024
    /// The shortest password `user add` and `user passwd` accept.
    public static let minimumPasswordLength = 8

    /// The PHC string of a new random salt and the password's hash.
    public func hash(_ password: String) throws -> String {
        var salt = [UInt8](repeating: 0, count: 16)
        var generator = SystemRandomNumberGenerator()
        for index in salt.indices { salt[index] = generator.next() }
        let key = try derive(password, salt: salt, logRounds: logRounds, blockSize: blockSize, parallelism: parallelism)
        return "$scrypt$ln=\(logRounds),r=\(blockSize),p=\(parallelism)$\(Self.base64(salt))$\(Self.base64(key))"
    }

    /// Whether `password` hashes to `stored` with the salt and cost `stored` names; false for a
    /// malformed or out-of-range stored string (never a trap, never unbounded work).
    public static func verify(_ password: String, against stored: String) -> Bool {
        let fields = stored.split(separator: "$", omittingEmptySubsequences: false)
        guard fields.count == 5, fields[0].isEmpty, fields[1] == "scrypt",
            let salt = bytes(fromBase64: fields[3]), let expected = bytes(fromBase64: fields[4]),
            (16...64).contains(salt.count), (16...64).contains(expected.count)
        else { return false }
        var parameters: [Substring: Int] = [:]
        for pair in fields[2].split(separator: ",") {
            let parts = pair.split(separator: "=", maxSplits: 1)
            guard parts.count == 2, let value = Int(parts[1]) else { return false }
            parameters[parts[0]] = value
        }
        // scrypt holds 128 * r * N bytes (times p): at most 256 MiB, twice the standard cost, so
        // that no stored string can make a sign-in take the server's memory.
        guard let logRounds = parameters["ln"], (1...20).contains(logRounds),
            let blockSize = parameters["r"], (1...32).contains(blockSize),
            let parallelism = parameters["p"], (1...4).contains(parallelism),
            128 * blockSize * (1 << logRounds) * parallelism <= 256 << 20
        else { return false }
        let hasher = PasswordHasher(logRounds: logRounds)
        guard
            let key = try? hasher.derive(
                password, salt: salt, logRounds: logRounds, blockSize: blockSize, parallelism: parallelism,
                length: expected.count)
        else { return false }
        // In constant time: a comparison that stops at the first difference tells how far a guess got.
        return zip(key, expected).reduce(UInt8(0)) { $0 | ($1.0 ^ $1.1) } == 0
    }

    private func derive(
        _ password: String, salt: [UInt8], logRounds: Int, blockSize: Int, parallelism: Int, length: Int = 32
    ) throws -> [UInt8] {
        let key = try KDF.Scrypt.deriveKey(
            from: Array(password.utf8.prefix(Self.maximumPasswordLength)), salt: salt, outputByteCount: length,
            rounds: 1 << logRounds, blockSize: blockSize, parallelism: parallelism)
        return key.withUnsafeBytes { Array($0) }
    }

    static func base64(_ bytes: [UInt8]) -> String {
        Data(bytes).base64EncodedString().replacingOccurrences(of: "=", with: "")
    }

    static func bytes(fromBase64 text: Substring) -> [UInt8]? {
        guard text.count <= 128 else { return nil }
        var padded = String(text)
        while padded.count % 4 != 0 { padded += "=" }
        return Data(base64Encoded: padded).map { Array($0) }
    }
}
