import Foundation
import LightboxImaging
import LightboxMetadata
import LightboxStore

/// A movie as a web browser can play it.
public enum PlayableMovie: Sendable {
    /// The stored movie plays as it is (H.264, VP8 or VP9, AV1): serve the resource.
    case stored(AssetResource)
    /// A copy re-encoded as H.264 (with the sound copied), kept with the asset's rendered
    /// images: the file's path and an entity tag for it.
    case transcoded(path: String, entityTag: String)
    /// The copy is being made; ask again in a moment.
    case preparing
}

extension PhotoLibrary {
    /// The video codecs (QuickTime sample entry types) every current browser decodes; HEVC,
    /// ProRes and Motion JPEG are not among them (Chromium on Linux plays no HEVC).
    static let browserCodecs: Set<String> = ["avc1", "avc3", "vp08", "vp09", "av01"]

    /// Whether a movie of this codec needs an H.264 copy for browsers; an unknown one may.
    static func needsPlayableCopy(codec: String?) -> Bool {
        codec.map { !browserCodecs.contains($0) } ?? true
    }

    /// The long side a copy for a browser is made at, at most.
    static let playableSide = 1920

    /// The sides a sized copy is made at: what PhotoKit's export presets offer (640x480 to
    /// 3840x2160), so that a few copies serve every request.
    public static let movieSides = [640, 960, 1280, 1920, 3840]

    /// An asset's movie (`current`: the edited one when there is one; else as imported) in a
    /// form a browser plays: the stored file when its codec is one browsers decode, else a copy
    /// re-encoded as H.264 by FFmpeg's libraries, made once (however many ask at the same time)
    /// and kept with the asset's images until the movie changes. Waits at most `wait` for a
    /// copy being made, then answers ``PlayableMovie/preparing``. Nil when the asset has no
    /// movie; throws when the movie cannot be decoded, naming it.
    ///
    /// `maximumSide` asks for the movie at most that long on its long side (PhotoKit's export
    /// presets): a larger movie is copied at the largest of ``movieSides`` not above it (640 at
    /// least). `transcode` asks for an H.264 copy whatever the stored codec.
    public func playableMovie(
        for asset: Asset, current: Bool = true, maximumSide: Int? = nil, transcode: Bool = false,
        wait: Duration = .seconds(20)
    ) async throws -> PlayableMovie? {
        guard let resource = current ? asset.currentMovieResource : asset.originalMovieResource else { return nil }
        let ownSide = max(resource.pixelWidth, resource.pixelHeight)
        // The copy's side: the preset that fits what was asked, never larger than the movie.
        let side =
            maximumSide.map { asked in Self.movieSides.last { $0 <= asked } ?? Self.movieSides[0] } ?? Self.playableSide
        let smaller = ownSide > side
        let key = "\(resource.sha256.prefix(16))-h264-\(side)-v1.mov"
        let tag = "\"\(resource.sha256.prefix(32))-h264-\(side)\""
        let copy = { [derivatives] in derivatives.localFile(localIdentifier: asset.localIdentifier, key: key) }
        // A <video> asks for a movie in many ranges: the copy made before is found by one stat,
        // and whether the stored movie plays is read from its headers once.
        if let made = copy() { return .transcoded(path: made, entityTag: tag) }
        let source = try await fileURL(for: resource).path
        let playsAsIs: Bool
        if let known = await MovieTranscoder.shared.verdict(for: resource.sha256) {
            playsAsIs = known
        } else {
            let codec = try await BlockingWork.run {
                try? MetadataReader.read(fileAtPath: source).quickTime?.videoCodec
            }
            playsAsIs = !Self.needsPlayableCopy(codec: codec)
            await MovieTranscoder.shared.record(playsAsIs, for: resource.sha256)
        }
        if playsAsIs && !transcode && !(maximumSide != nil && smaller) { return .stored(resource) }
        let name = resource.originalFilename
        let job = await MovieTranscoder.shared.job(for: asset.localIdentifier + "/" + key) { [derivatives] in
            // A movie transcoded is an edit with no frame processor: minutes of work, on the
            // edits' lanes, never on those catalog reads need.
            try await EditingWork.run {
                let scratch = try derivatives.scratchFolder()
                let partial = scratch.path + "/" + key
                do {
                    _ = try ImageFile.editMovie(
                        at: source, to: partial, photoSide: side,
                        options: MovieEditOptions(quality: 23, maximumSide: side)
                    ) { frame in frame.image }
                } catch {
                    throw LibraryError(
                        .unreadableFile, "the movie \(name) cannot be made playable: \(error)", underlying: error)
                }
                try derivatives.storeFile(at: partial, localIdentifier: asset.localIdentifier, key: key)
            }
        }
        let finished = try await withThrowingTaskGroup(of: Bool.self) { group in
            group.addTask {
                try await job.value
                return true
            }
            group.addTask {
                try await Task.sleep(for: wait)
                return false
            }
            let first = try await group.next() ?? false
            group.cancelAll()
            return first
        }
        guard finished else { return .preparing }
        guard let made = copy() else {
            throw LibraryError(.storageFailed, "the playable copy of \(name) was made but is not stored")
        }
        return .transcoded(path: made, entityTag: tag)
    }
}

/// Copies of movies being made, one job per file however many ask, one at a time (x264 uses
/// every core); a job that failed is forgotten, so that the next ask tries again.
actor MovieTranscoder {
    static let shared = MovieTranscoder()

    private var jobs: [String: Task<Void, any Error>] = [:]
    private var last: Task<Void, Never>?
    /// Whether a stored movie (by its digest) plays in browsers as it is; forgotten whole past
    /// ``maximumVerdicts``, which bounds it whatever is asked.
    private var verdicts: [String: Bool] = [:]
    static let maximumVerdicts = 4_096

    func verdict(for digest: String) -> Bool? {
        verdicts[digest]
    }

    func record(_ playsAsIs: Bool, for digest: String) {
        if verdicts.count >= Self.maximumVerdicts { verdicts.removeAll() }
        verdicts[digest] = playsAsIs
    }

    func job(for target: String, _ make: @escaping @Sendable () async throws -> Void) -> Task<Void, any Error> {
        if let running = jobs[target] { return running }
        let previous = last
        let task = Task<Void, any Error> {
            await previous?.value
            // The task runs on this actor (it inherits the isolation): forgotten when done.
            defer { self.finished(target) }
            try await make()
        }
        jobs[target] = task
        last = Task { _ = try? await task.value }
        return task
    }

    private func finished(_ target: String) {
        jobs[target] = nil
    }
}
