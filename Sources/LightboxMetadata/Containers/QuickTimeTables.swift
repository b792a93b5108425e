/// The sample tables of a QuickTime or MPEG-4 movie, checked before FFmpeg reads them.
///
/// FFmpeg's demuxer believes a table's counts and builds an index entry (tens of bytes) for each
/// sample, chunk and time-to-sample entry it lists: a 3 KB movie whose `stsz` gave a constant
/// sample size and 80 million samples made it allocate 1.9 GB, and 999 tracks 1.5 GB. Every
/// count here is checked against what holds it: a table's entries must fit in its box, a
/// constant-size track's samples in the file, and the samples of all tracks together in a bound
/// no real movie reaches.
enum QuickTimeTables {
    /// The most tracks a movie may have: cameras write one to five, editors a few dozen.
    static let maximumTracks = 128
    /// The most index entries (samples, or chunks of constant-size sound) all tracks may list
    /// together: a day of 60 frames a second with sound is fewer than 11 million.
    static let maximumEntries = 16_000_000
    /// The most track fragments (`traf`) read: a fragmented recording of a day at one fragment
    /// a second is 86,400.
    static let maximumFragments = 200_000

    /// Throws when a table lists more than its box or the file can hold, or the movie more
    /// tracks or samples than any real one. Reads only the boxes' headers and counts. Returns
    /// the index entries FFmpeg will build.
    @discardableResult
    static func check(_ source: ByteSource) throws(MetadataError) -> Int {
        let top = try ISOBox.children(of: source, in: 0..<source.count)
        var entries = 0
        var tracks = 0
        for moov in top where moov.type == "moov" {
            for trak in try moov.children(of: source) where trak.type == "trak" {
                tracks += 1
                guard tracks <= maximumTracks else {
                    throw MetadataError(.malformed, "the movie has more than \(maximumTracks) tracks")
                }
                entries += try trackEntries(trak, source)
                try checkTotal(entries)
            }
        }
        var fragments = 0
        for moof in top where moof.type == "moof" {
            for traf in try moof.children(of: source) where traf.type == "traf" {
                fragments += 1
                guard fragments <= maximumFragments else {
                    throw MetadataError(.malformed, "the movie has more than \(maximumFragments) track fragments")
                }
                for trun in try traf.children(of: source) where trun.type == "trun" {
                    entries += try runSamples(trun, source)
                    try checkTotal(entries)
                }
            }
        }
        return entries
    }

    private static func checkTotal(_ entries: Int) throws(MetadataError) {
        guard entries <= maximumEntries else {
            throw MetadataError(
                .malformed,
                "the movie's sample tables list more than \(maximumEntries) samples, more than any real movie")
        }
    }

    /// The index entries FFmpeg builds for one track, each of its tables checked.
    private static func trackEntries(_ trak: ISOBox, _ source: ByteSource) throws(MetadataError) -> Int {
        guard let mdia = try trak.children(of: source).first("mdia"),
            let minf = try mdia.children(of: source).first("minf"),
            let stbl = try minf.children(of: source).first("stbl")
        else { return 0 }
        var samples = 0
        var chunks = 0
        var constantSize = false
        var oneTickEach = false
        for table in try stbl.children(of: source) {
            let head = try source.bytes(at: table.payloadOffset, upTo: 16)
            func count(at offset: Int) throws(MetadataError) -> Int {
                guard let value = head.u32(at: offset) else {
                    throw MetadataError(.truncated, "the movie's \(table.type) box ends inside its header")
                }
                return Int(value)
            }
            // Each table: version and flags, maybe more, then its count, then that many entries.
            func fits(_ count: Int, bytesEach: Int, after header: Int) throws(MetadataError) {
                guard count <= (table.payloadSize - header) / bytesEach else {
                    throw MetadataError(
                        .malformed,
                        "the movie's \(table.type) box lists \(count) entries but holds \(table.payloadSize) bytes")
                }
            }
            switch table.type {
            case "stsz":
                let size = try count(at: 4)
                let number = try count(at: 8)
                if size == 0 {
                    try fits(number, bytesEach: 4, after: 12)
                } else {
                    // Samples of one size: their bytes, at least, must be in the file.
                    guard number <= source.count / size else {
                        throw MetadataError(
                            .malformed,
                            "the movie's stsz lists \(number) samples of \(size) bytes in a file of \(source.count)")
                    }
                    constantSize = true
                }
                samples = number
            case "stz2":
                let bits = Int(head.count > 7 ? head[7] : 0)
                let number = try count(at: 8)
                guard [4, 8, 16].contains(bits) else {
                    throw MetadataError(.malformed, "the movie's stz2 has \(bits)-bit sizes (4, 8 or 16 are allowed)")
                }
                guard number <= (table.payloadSize - 12) * 8 / bits else {
                    throw MetadataError(.malformed, "the movie's stz2 lists more samples than it holds")
                }
                samples = number
            case "stts", "ctts":
                let number = try count(at: 4)
                try fits(number, bytesEach: 8, after: 8)
                if table.type == "stts" { oneTickEach = number == 1 && head.u32(at: 12) == 1 }
            case "stsc": try fits(try count(at: 4), bytesEach: 12, after: 8)
            case "stco", "stss", "stps":
                let number = try count(at: 4)
                try fits(number, bytesEach: 4, after: 8)
                if table.type == "stco" { chunks = number }
            case "co64":
                let number = try count(at: 4)
                try fits(number, bytesEach: 8, after: 8)
                chunks = number
            default: break
            }
        }
        // FFmpeg indexes uncompressed sound (samples of one size, one tick each) by chunk, and
        // every other track by sample.
        return constantSize && oneTickEach ? chunks : samples + chunks
    }

    /// The samples of a fragment's run (`trun`): each stated field of each sample must be in it.
    private static func runSamples(_ trun: ISOBox, _ source: ByteSource) throws(MetadataError) -> Int {
        let head = try source.bytes(at: trun.payloadOffset, upTo: 8)
        guard head.count == 8, let flags = head.u32(at: 0), let count = head.u32(at: 4).map(Int.init) else {
            throw MetadataError(.truncated, "the movie's trun box ends inside its header")
        }
        let perSample = [0x100, 0x200, 0x400, 0x800].filter { flags & UInt32($0) != 0 }.count * 4
        let header = 8 + (flags & 0x1 != 0 ? 4 : 0) + (flags & 0x4 != 0 ? 4 : 0)
        let room = trun.payloadSize - header
        // A run whose samples state nothing takes their sizes from defaults: each still has a byte.
        guard room >= 0, count <= (perSample > 0 ? room / perSample : source.count) else {
            throw MetadataError(
                .malformed, "the movie's trun lists \(count) samples but holds \(trun.payloadSize) bytes")
        }
        return count
    }
}
