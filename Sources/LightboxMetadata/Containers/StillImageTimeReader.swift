/// Finds in a timed metadata track (`mebx`) the sample holding
/// `com.apple.quicktime.still-image-time`, and its time: where an iPhone's Live Photo movie
/// records the still's moment.
enum StillImageTimeReader {
    /// Samples looked at: the key comes in the first few (Apple's tracks hold one or two).
    static let maximumSamples = 64
    /// Bytes of a sample read: the key's is nine.
    static let maximumSampleSize = 4096

    /// The still's time in seconds, or nil when the track holds no such key. `media` is the
    /// track's `mdia` children.
    static func time(in media: [ISOBox], _ source: ByteSource) throws(MetadataError) -> Double? {
        guard let mdhd = media.first("mdhd"), let minf = media.first("minf"),
            let stbl = try minf.children(of: source).first("stbl")
        else { return nil }
        let header = try mdhd.payload(of: source)
        let timescale = Int(header.u32(at: (header.first ?? 0) == 1 ? 20 : 12) ?? 0)
        guard timescale > 0 else { return nil }
        let table = try stbl.children(of: source)
        guard let stsd = table.first("stsd"), let keyID = try localKeyID(stsd, source) else { return nil }

        // Each sample's start time (stts), size (stsz) and offset (stsc and stco or co64).
        guard let stts = table.first("stts"), let stsz = table.first("stsz"), let stsc = table.first("stsc")
        else { return nil }
        var times: [Int] = []
        var cursor = PayloadCursor(try stts.payload(of: source), at: 4)
        var time = 0
        for _ in 0..<Swift.min(try cursor.read(4), maximumSamples) where times.count < maximumSamples {
            let count = try cursor.read(4)
            let delta = try cursor.read(4)
            for _ in 0..<Swift.min(count, maximumSamples - times.count) {
                times.append(time)
                time = time.addingReportingOverflow(delta).partialValue
            }
        }
        cursor = PayloadCursor(try stsz.payload(of: source, limit: 1 << 20), at: 4)
        let uniformSize = try cursor.read(4)
        let sizeCount = Swift.min(try cursor.read(4), times.count)
        var sizes: [Int] = []
        for _ in 0..<sizeCount { sizes.append(uniformSize != 0 ? uniformSize : try cursor.read(4)) }
        let chunkOffsets = try offsets(table, source)
        cursor = PayloadCursor(try stsc.payload(of: source, limit: 1 << 20), at: 4)
        var runs: [(firstChunk: Int, samples: Int)] = []
        for _ in 0..<Swift.min(try cursor.read(4), maximumSamples) {
            runs.append((try cursor.read(4), try cursor.read(4)))
            _ = try cursor.read(4)
        }
        var sample = 0
        for (chunkIndex, chunkOffset) in chunkOffsets.enumerated() where sample < sizes.count {
            let chunk = chunkIndex + 1
            let perChunk = runs.last { $0.firstChunk <= chunk }?.samples ?? 0
            var offset = chunkOffset
            for _ in 0..<Swift.min(perChunk, sizes.count - sample) {
                let size = sizes[sample]
                if size >= 9, size <= maximumSampleSize, let bytes = try? source.bytes(at: offset, count: size),
                    holds(keyID, bytes)
                {
                    return Double(times[sample]) / Double(timescale)
                }
                offset = offset.addingReportingOverflow(size).partialValue
                sample += 1
            }
        }
        return nil
    }

    /// The local key ID of the still-image-time key in the `mebx` sample description.
    private static func localKeyID(_ stsd: ISOBox, _ source: ByteSource) throws(MetadataError) -> UInt32? {
        guard let mebx = try stsd.children(of: source, skip: 8).first("mebx"),
            let keys = try mebx.children(of: source, skip: 8).first("keys")
        else { return nil }
        for entry in try keys.children(of: source) {
            guard let keyd = try entry.children(of: source).first("keyd") else { continue }
            let payload = try keyd.payload(of: source, limit: 4096)
            if payload.count > 4, String(decoding: payload[4...], as: UTF8.self) == StillImageTimeWriter.key {
                return try source.bytes(at: entry.offset + 4, count: 4).u32(at: 0)
            }
        }
        return nil
    }

    private static func offsets(_ table: [ISOBox], _ source: ByteSource) throws(MetadataError) -> [Int] {
        let wide = table.first("co64")
        guard let box = wide ?? table.first("stco") else { return [] }
        let payload = try box.payload(of: source, limit: 1 << 20)
        let count = Swift.min(Int(payload.u32(at: 4) ?? 0), maximumSamples)
        return (0..<count).compactMap { index in
            wide != nil
                ? payload.u64(at: 8 + index * 8).flatMap { Int(exactly: $0) }
                : payload.u32(at: 8 + index * 4).map(Int.init)
        }
    }

    /// Whether a metadata sample (boxes of size, local key ID, value) holds the key.
    private static func holds(_ keyID: UInt32, _ bytes: [UInt8]) -> Bool {
        var at = 0
        while at + 8 <= bytes.count, let size = bytes.u32(at: at).map(Int.init), size >= 8, at + size <= bytes.count {
            if bytes.u32(at: at + 4) == keyID { return true }
            at += size
        }
        return false
    }
}
