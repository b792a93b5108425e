/// Adds to a QuickTime movie the timed metadata track in which iPhones record a Live Photo's
/// still moment: a `mebx` track whose sample holding the key
/// `com.apple.quicktime.still-image-time` (a signed byte, -1) is shown at that moment.
///
/// The track's sample goes in a new `mdat` box at the end of the file; when the `moov` box
/// precedes the media, every chunk offset after it moves by what the track adds to it.
enum StillImageTimeWriter {
    static let key = "com.apple.quicktime.still-image-time"
    /// The track's timescale: QuickTime's customary 600, which divides 24, 25, 30 and 60 fps.
    static let timescale = 600

    /// `bytes` with the track added. `fileOffset` is where `bytes` begin in the file: a `moov`
    /// box alone, read from the end of its file, gets its sample's offset right.
    static func adding(at seconds: Double, to bytes: [UInt8], fileOffset: Int = 0) throws(MetadataError) -> [UInt8] {
        guard seconds.isFinite, seconds >= 0, seconds < 86_400 else {
            throw MetadataError(.malformed, "a still time of \(seconds) s is out of range")
        }
        let source = ByteSource(bytes: bytes)
        let top = try ISOBox.children(of: source, in: 0..<bytes.count, tolerateTruncation: false)
        guard let moov = top.first("moov") else { throw MetadataError(.malformed, "the movie has no moov box") }
        let children = try moov.children(of: source)
        guard let mvhd = children.first("mvhd") else { throw MetadataError(.malformed, "the movie has no mvhd box") }
        var header = try mvhd.payload(of: source)
        let version = header.first ?? 0
        let timescaleAt = version == 1 ? 20 : 12
        let nextTrackAt = version == 1 ? 108 : 96
        guard header.count >= nextTrackAt + 4, let movieTimescale = header.u32(at: timescaleAt), movieTimescale > 0,
            let trackID = header.u32(at: nextTrackAt), trackID > 0, trackID < UInt32.max
        else { throw MetadataError(.malformed, "the movie's mvhd box is malformed") }
        let movieDuration =
            version == 1 ? Int(clamping: header.u64(at: 24) ?? 0) : Int(header.u32(at: 16) ?? 0)
        header.replaceSubrange(nextTrackAt..<nextTrackAt + 4, with: QuickTimeKeyWriter.be32(Int(trackID) + 1))

        // A day at most: the movie's duration is the file's to state.
        let movieSeconds = Swift.min(Double(movieDuration) / Double(movieTimescale), 86_400)
        let total = Swift.max(1, Int((movieSeconds * Double(timescale)).rounded()))
        let still = Swift.min(Int((seconds * Double(timescale)).rounded()), total - 1)
        let sample = QuickTimeKeyWriter.be32(9) + QuickTimeKeyWriter.be32(1) + [0xFF]
        // An empty sample until the still's moment, then the key's.
        let samples: [(size: Int, duration: Int)] =
            still > 0 ? [(0, still), (sample.count, total - still)] : [(sample.count, total)]
        let trak = track(id: Int(trackID), movieDuration: movieDuration, mediaDuration: total, samples: samples)

        var body: [UInt8] = []
        for child in children {
            body +=
                child.type == "mvhd" ? QuickTimeKeyWriter.box("mvhd", header) : Array(bytes[child.offset..<child.end])
        }
        let trakAt = body.count
        body += trak.bytes
        var newMoov = QuickTimeKeyWriter.box("moov", body)
        let delta = newMoov.count - (moov.end - moov.offset)
        if top.contains(where: { $0.type == "mdat" && $0.offset > moov.offset }) {
            newMoov = try QuickTimeKeyWriter.moveChunkOffsets(in: newMoov, after: moov.end, by: delta)
        }
        var out = Array(bytes[..<moov.offset]) + newMoov + Array(bytes[moov.end...])
        let sampleAt = fileOffset + out.count + 8
        guard sampleAt <= Int(UInt32.max) else { throw MetadataError(.malformed, "the movie is past 4 GB") }
        let chunkOffsetAt = moov.offset + 8 + trakAt + trak.chunkOffsetAt
        out.replaceSubrange(chunkOffsetAt..<chunkOffsetAt + 4, with: QuickTimeKeyWriter.be32(sampleAt))
        out += QuickTimeKeyWriter.box("mdat", sample)
        return out
    }

    /// The `trak` box, and where its one chunk offset lies in it.
    private static func track(id: Int, movieDuration: Int, mediaDuration: Int, samples: [(size: Int, duration: Int)])
        -> (bytes: [UInt8], chunkOffsetAt: Int)
    {
        let be32 = QuickTimeKeyWriter.be32
        let box = QuickTimeKeyWriter.box
        let zero4: [UInt8] = [0, 0, 0, 0]
        let identity: [UInt8] =
            be32(0x10000) + be32(0) + be32(0) + be32(0) + be32(0x10000) + be32(0) + be32(0)
            + be32(0) + be32(0x4000_0000)
        // Enabled and in the movie; no size, no volume.
        let tkhd = box(
            "tkhd",
            [0, 0, 0, 3] + zero4 + zero4 + be32(id) + zero4 + be32(Swift.min(movieDuration, Int(UInt32.max))) + zero4
                + zero4 + [0, 0, 0, 0, 0, 0, 0, 0] + identity + zero4 + zero4)
        let mdhd = box("mdhd", zero4 + zero4 + zero4 + be32(timescale) + be32(mediaDuration) + [0x55, 0xC4, 0, 0])
        let hdlr = box("hdlr", zero4 + zero4 + Array("meta".utf8) + Array(repeating: 0, count: 12) + [0])
        let dinf = box("dinf", box("dref", zero4 + be32(1) + box("url ", [0, 0, 0, 1])))
        let keyd = box("keyd", Array("mdta".utf8) + Array(key.utf8))
        let dtyp = box("dtyp", be32(0) + be32(65))  // well-known type 65: signed 8-bit integer
        let keys = box("keys", box("\u{0}\u{0}\u{0}\u{1}", keyd + dtyp))
        let mebx = box("mebx", [0, 0, 0, 0, 0, 0, 0, 1] + keys)
        let stsd = box("stsd", zero4 + be32(1) + mebx)
        let stts = box("stts", zero4 + be32(samples.count) + samples.flatMap { be32(1) + be32($0.duration) })
        let stsc = box("stsc", zero4 + be32(1) + be32(1) + be32(samples.count) + be32(1))
        let stsz = box("stsz", zero4 + be32(0) + be32(samples.count) + samples.flatMap { be32($0.size) })
        let stco = box("stco", zero4 + be32(1) + be32(0))
        let stbl = box("stbl", stsd + stts + stsc + stsz + stco)
        let minf = box("minf", box("nmhd", zero4) + dinf + stbl)
        let mdia = box("mdia", mdhd + hdlr + minf)
        let trak = box("trak", tkhd + mdia)
        // stco is the last box of stbl, itself last in minf, mdia and trak: its offset is the
        // last four bytes.
        return (trak, trak.count - 4)
    }
}

extension AppleMetadataWriter {
    /// A Live Photo's movie: `com.apple.quicktime.content.identifier` set and, when given, the
    /// still's moment recorded as iPhones do (a `com.apple.quicktime.still-image-time` track).
    /// The movie's `moov` box must end the file (as iPhones and FFmpeg write it without
    /// `faststart`): only that box is read, and the answer is what replaces it, from `offset`
    /// to the end: write it there. The media data is never read or copied.
    public static func livePhotoMovieEnding(
        ofFileAt path: String, contentIdentifier: String, stillImageTime: Double?
    ) throws(MetadataError) -> (offset: Int, bytes: [UInt8]) {
        let source = try ByteSource(fileAtPath: path)
        let top = try ISOBox.children(of: source, in: 0..<source.count, tolerateTruncation: false)
        guard let moov = top.first("moov"), moov.end == source.count else {
            throw MetadataError(.malformed, "\(path): the movie's moov box does not end the file")
        }
        let box = try source.bytes(at: moov.offset, count: moov.end - moov.offset)
        var ending = try movie(box, contentIdentifier: contentIdentifier)
        if let stillImageTime {
            ending = try StillImageTimeWriter.adding(at: stillImageTime, to: ending, fileOffset: moov.offset)
        }
        return (moov.offset, ending)
    }

}
