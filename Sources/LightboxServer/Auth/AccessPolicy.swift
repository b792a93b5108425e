import Foundation
import Synchronization

/// What the server accepts before any route runs: the names it answers to, and whether it
/// listens on loopback alone.
public struct AccessPolicy: Sendable {
    /// Host names (besides `localhost` and IP addresses, which need no configuring) that
    /// requests may be addressed to: the names of the server on the network or behind its
    /// proxy. A request for any other name is refused, so a DNS name an attacker points at
    /// the server (rebinding) cannot read it from a browser.
    public var hostNames: [String] = [] {
        // A copy with other names must not answer from what this one accepted.
        didSet { acceptedHosts = SharedSet() }
    }
    /// Whether the server listens on a loopback address only. A library without users is
    /// served (to whoever reaches it, as its owner) only then.
    public var loopbackOnly = true
    /// Whether a proxy in front is trusted: its `X-Forwarded-Proto: https` says the client used
    /// TLS (session cookies are then `Secure`), and its `X-Forwarded-For` names the client, whose
    /// address sign-in throttling and the list of sessions then use (else every client would be
    /// the proxy, and five failures by anyone would slow everyone).
    public var trustProxy = false

    public init() {}

    /// Whether `address` (an IP literal or `localhost`) is a loopback address.
    public static func isLoopback(_ address: String) -> Bool {
        let trimmed = address.trimmingCharacters(in: CharacterSet(charactersIn: "[]"))
        if trimmed == "localhost" || trimmed == "::1" { return true }
        if let bytes = ipv4(trimmed) { return bytes[0] == 127 }
        return false
    }

    /// Whether a request's `Host` header names this server: remembered for the few values
    /// clients send, so that the check is a lookup on every request but the first.
    func accepts(host header: String) -> Bool {
        if acceptedHosts.withLock({ $0.contains(header) }) { return true }
        guard parses(host: header) else { return false }
        acceptedHosts.withLock { accepted in
            if accepted.count >= 64 { accepted.removeAll() }
            accepted.insert(header)
        }
        return true
    }

    /// The names accepted lately, exactly as their headers said them.
    private var acceptedHosts = SharedSet()

    private func parses(host header: String) -> Bool {
        var name = header.lowercased()
        if name.hasPrefix("[") {
            // An IPv6 literal, with or without a port.
            guard let end = name.firstIndex(of: "]") else { return false }
            let rest = name[name.index(after: end)...]
            return rest.isEmpty || (rest.hasPrefix(":") && UInt16(rest.dropFirst()) != nil)
        }
        if let colon = name.lastIndex(of: ":") {
            guard UInt16(name[name.index(after: colon)...]) != nil else { return false }
            name = String(name[..<colon])
        }
        if name.hasSuffix(".") { name.removeLast() }
        if name == "localhost" || Self.ipv4(name) != nil { return true }
        return hostNames.contains { $0.lowercased() == name }
    }

    /// The four bytes of a dotted IPv4 address, or nil.
    static func ipv4(_ text: String) -> [UInt8]? {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 4 else { return nil }
        let bytes = parts.compactMap { part -> UInt8? in
            guard (1...3).contains(part.count), part.allSatisfy(\.isASCII) else { return nil }
            return UInt8(part)
        }
        return bytes.count == 4 ? bytes : nil
    }
}

/// A set shared by every copy of the policy (a value type).
final class SharedSet: Sendable {
    private let set = Mutex<Set<String>>([])

    func withLock<T>(_ body: (inout Set<String>) -> T) -> T { set.withLock { body(&$0) } }
}
