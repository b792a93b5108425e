/// Sets `mdta` keys in a QuickTime or MPEG-4 movie's `moov` box (the Live Photo content
/// identifier among them): in its `meta` box when it has one, else in a new one.
///
/// When the `moov` box precedes the media data, growing it moves the data: every chunk
/// offset (`stco`, `co64`) that points past it is moved by as much.
enum QuickTimeKeyWriter {
    /// A key's value, with the well-known type QuickTime's `data` box gives it.
    enum Value: Hashable, ExpressibleByStringLiteral {
        /// UTF-8 text (type 1).
        case text(String)
        /// A big-endian 32-bit float (type 23), as Android writes `com.android.capture.fps`.
        case float32(Float)

        init(stringLiteral value: String) { self = .text(value) }
    }

    static func setting(_ values: [String: String], in bytes: [UInt8]) throws(MetadataError) -> [UInt8] {
        try setting(values.mapValues { Value.text($0) }, in: bytes)
    }

    static func setting(_ values: [String: Value], in bytes: [UInt8]) throws(MetadataError) -> [UInt8] {
        let source = ByteSource(bytes: bytes)
        let top = try ISOBox.children(of: source, in: 0..<bytes.count, tolerateTruncation: false)
        guard let moov = top.first("moov") else { throw MetadataError(.malformed, "the movie has no moov box") }
        let children = try moov.children(of: source)
        var body: [UInt8] = []
        var replaced = false
        for child in children {
            if child.type == "meta", !replaced, let meta = try rewriteMeta(child, source, values) {
                body += meta
                replaced = true
            } else {
                body += Array(bytes[child.offset..<child.end])
            }
        }
        if !replaced { body += newMeta(values) }
        var newMoov = box("moov", body)
        let delta = newMoov.count - (moov.end - moov.offset)
        let dataFollows = top.contains { $0.type == "mdat" && $0.offset > moov.offset }
        if delta != 0 && dataFollows {
            // Rebuild with chunk offsets moved: the media after the moov box shifts by `delta`.
            let moved = try moveChunkOffsets(in: newMoov, after: moov.end, by: delta)
            newMoov = moved
        }
        return Array(bytes[..<moov.offset]) + newMoov + Array(bytes[moov.end...])
    }

    static func box(_ type: String, _ payload: [UInt8]) -> [UInt8] {
        let size = UInt32(payload.count + 8)
        return [UInt8(size >> 24), UInt8((size >> 16) & 0xFF), UInt8((size >> 8) & 0xFF), UInt8(size & 0xFF)]
            + type.unicodeScalars.map { UInt8($0.value & 0xFF) } + payload
    }

    static func be32(_ value: Int) -> [UInt8] {
        [UInt8((value >> 24) & 0xFF), UInt8((value >> 16) & 0xFF), UInt8((value >> 8) & 0xFF), UInt8(value & 0xFF)]
    }

    /// A `data` box holding the value.
    static func dataBox(_ value: Value) -> [UInt8] {
        switch value {
        case .text(let text): box("data", be32(1) + be32(0) + Array(text.utf8))
        case .float32(let number): box("data", be32(23) + be32(0) + be32(Int(number.bitPattern)))
        }
    }

    /// A new QuickTime-style `meta` box (no version and flags) with an `mdta` handler.
    static func newMeta(_ values: [String: Value]) -> [UInt8] {
        let handler = box("hdlr", [0, 0, 0, 0] + be32(0) + Array("mdta".utf8) + Array(repeating: 0, count: 12) + [0])
        let sorted = values.sorted { $0.key < $1.key }
        var keys = [0, 0, 0, 0] + be32(sorted.count)
        var items: [UInt8] = []
        for (index, entry) in sorted.enumerated() {
            keys += be32(8 + entry.key.utf8.count) + Array("mdta".utf8) + Array(entry.key.utf8)
            let payload = dataBox(entry.value)
            items += be32(8 + payload.count) + be32(index + 1) + payload
        }
        return box("meta", handler + box("keys", keys) + box("ilst", items))
    }

    /// The `meta` box with the values set, or nil when it is not an `mdta` one.
    static func rewriteMeta(_ meta: ISOBox, _ source: ByteSource, _ values: [String: Value]) throws(MetadataError)
        -> [UInt8]?
    {
        let head = try source.bytes(at: meta.payloadOffset, upTo: 8)
        let fullBox = head.fourCC(at: 4) != "hdlr"
        let children = try meta.children(of: source, skip: fullBox ? 4 : 0)
        guard let hdlr = children.first("hdlr"), try hdlr.payload(of: source).fourCC(at: 8) == "mdta",
            let keysBox = children.first("keys"), let ilst = children.first("ilst")
        else { return nil }
        // The existing keys, 1-based, and the items by key index.
        let keyPayload = try keysBox.payload(of: source)
        var cursor = PayloadCursor(keyPayload, at: 4)
        let count = try cursor.read(4)
        var names: [String] = []
        for _ in 0..<Swift.min(count, 10_000) {
            let size = try cursor.read(4)
            guard size >= 8, cursor.position + size - 4 <= keyPayload.count else {
                throw MetadataError(.malformed, "a key of the movie's keys box is malformed")
            }
            let namespace = try cursor.fourCC()
            let name = String(decoding: keyPayload[cursor.position..<cursor.position + size - 8], as: UTF8.self)
            names.append(namespace + "\u{0}" + name)
            cursor.position += size - 8
        }
        var items: [Int: [UInt8]] = [:]
        for item in try ilst.children(of: source) {
            let index = Int(try source.bytes(at: item.offset + 4, count: 4).u32(at: 0)!)
            items[index] = Array(try source.bytes(at: item.offset, count: item.end - item.offset))
        }
        for (key, value) in values.sorted(by: { $0.key < $1.key }) {
            var index = names.firstIndex(of: "mdta\u{0}" + key).map { $0 + 1 }
            if index == nil {
                names.append("mdta\u{0}" + key)
                index = names.count
            }
            let payload = dataBox(value)
            items[index!] = be32(8 + payload.count) + be32(index!) + payload
        }
        var keys = [0, 0, 0, 0] + be32(names.count)
        for name in names {
            let parts = name.split(separator: "\u{0}", maxSplits: 1, omittingEmptySubsequences: false)
            let namespace = Array(String(parts[0]).utf8)
            let key = Array((parts.count > 1 ? String(parts[1]) : "").utf8)
            keys += be32(8 + key.count) + namespace + key
        }
        var body: [UInt8] = fullBox ? Array(try source.bytes(at: meta.payloadOffset, count: 4)) : []
        for child in children {
            switch child.type {
            case "keys": body += box("keys", keys)
            case "ilst": body += box("ilst", items.keys.sorted().flatMap { items[$0]! })
            default: body += Array(try source.bytes(at: child.offset, count: child.end - child.offset))
            }
        }
        return box("meta", body)
    }

    /// `moov` (as bytes) with every stco/co64 entry past `end` of the old file moved by `delta`.
    static func moveChunkOffsets(in moov: [UInt8], after end: Int, by delta: Int) throws(MetadataError) -> [UInt8] {
        let source = ByteSource(bytes: moov)
        func rebuild(_ box: ISOBox, depth: Int) throws(MetadataError) -> [UInt8] {
            let raw = Array(moov[box.offset..<box.end])
            switch box.type {
            case "moov", "trak", "mdia", "minf", "stbl":
                guard depth < ISOBox.maximumDepth else { return raw }
                var body: [UInt8] = []
                for child in try box.children(of: source) { body += try rebuild(child, depth: depth + 1) }
                return Self.box(box.type, body)
            case "stco", "co64":
                var payload = try box.payload(of: source, limit: 64 << 20)
                let wide = box.type == "co64"
                let count = Int(payload.u32(at: 4) ?? 0)
                for index in 0..<count {
                    let at = 8 + index * (wide ? 8 : 4)
                    // A 64-bit offset is the file's: it may be past Int, or near enough to pass it.
                    guard
                        let value = wide
                            ? payload.u64(at: at).flatMap({ Int(exactly: $0) }) : payload.u32(at: at).map(Int.init)
                    else { break }
                    guard value >= end else { continue }
                    let (moved, overflow) = value.addingReportingOverflow(delta)
                    guard !overflow else { throw MetadataError(.malformed, "a chunk offset of \(value) cannot move") }
                    if wide {
                        let bytes = (0..<8).map { UInt8((moved >> (56 - 8 * $0)) & 0xFF) }
                        payload.replaceSubrange(at..<at + 8, with: bytes)
                    } else {
                        guard moved <= Int(UInt32.max) else {
                            throw MetadataError(.malformed, "a chunk offset would pass 4 GB")
                        }
                        payload.replaceSubrange(at..<at + 4, with: be32(moved))
                    }
                }
                return Self.box(box.type, payload)
            default:
                return raw
            }
        }
        let top = try ISOBox.children(of: source, in: 0..<moov.count)
        guard let root = top.first else { return moov }
        return try rebuild(root, depth: 0)
    }
}

extension AppleMetadataWriter {
    /// The QuickTime movie `bytes` with `com.apple.quicktime.content.identifier` set.
    public static func movie(_ bytes: [UInt8], contentIdentifier: String) throws(MetadataError) -> [UInt8] {
        try QuickTimeKeyWriter.setting(["com.apple.quicktime.content.identifier": contentIdentifier], in: bytes)
    }
}
