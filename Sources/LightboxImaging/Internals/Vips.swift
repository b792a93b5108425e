import CColour
import CJPEG
import CResample
import CVips
import Glibc
import LightboxMetadata
import Synchronization

/// The raw libvips calls. Everything that touches a `VipsImage` pointer lives in this folder;
/// the public API above it returns Swift values and throws ``ImagingError``.
enum Vips {
    /// libvips started once per process, and the modules folder it was told not to load at
    /// start (nil when it loaded its modules itself).
    private static let startup: (started: Bool, deferredModules: String?, failure: String?) = {
        // libvips is opened here, on the first image, not when the process starts (CVips.h).
        var message = [CChar](repeating: 0, count: 512)
        guard cvips_open_library(&message, message.count) == 1 else {
            return (false, nil, JPEGDecoder.text(message))
        }
        // vips_init loads every module of its modules folder: ImageMagick, poppler, OpenSlide,
        // libjxl and libheif with their own libraries, a large part of a process's start. A
        // JPEG decoded by Lightbox's own path needs none of them; the one Lightbox needs,
        // libheif's, is loaded before the first file libvips itself opens (`ensureStarted`).
        // libvips finds the folder under VIPSHOME, which for vips_init alone names a prefix that
        // holds nothing, and is then left as libvips would leave it: the prefix someone set, or
        // the one libvips would guess. Under a VIPSHOME of someone's, its modules folder is the
        // one deferred: libvips would have loaded every module there.
        let userPrefix = getenv("VIPSHOME").map { String(cString: $0) }
        let folder = userPrefix.map { moduleFolder(prefix: $0) } ?? moduleFolder()
        let defers = folder != nil
        var prefix = userPrefix
        if defers {
            // What vips_init would guess and set, had VIPSHOME been unset.
            if prefix == nil { prefix = cvips_guess_prefix("lightbox", "VIPSHOME").map { String(cString: $0) } }
            setenv("VIPSHOME", "/dev/null", 1)
        }
        let started = cvips_init("lightbox") == 0
        if defers {
            if let prefix { setenv("VIPSHOME", prefix, 1) } else { unsetenv("VIPSHOME") }
        }
        guard started else { return (false, nil, "libvips failed to start: \(takeError())") }
        // Thumbnails of many files are made in parallel by our own callers; libvips' operation
        // cache would only hold on to memory for images we never ask for twice.
        cvips_cache_set_max(0)
        cvips_silence_warnings()
        PixelBuffers.prepareProcess()
        return (true, defers ? folder : nil, nil)
    }()

    /// Of the deferred modules, libheif's alone, loaded once; then every loader but those of
    /// the formats Lightbox reads is blocked. libvips offers a file to every loader it has,
    /// blocked or not, to find which takes it: the other modules (ImageMagick, OpenSlide,
    /// poppler, libjxl) would look into files Lightbox never imports, as OpenSlide's did into a
    /// fuzzed TIFF (docs/SECURITY.md, finding 5).
    private static let modulesLoaded: Void = {
        if let folder = startup.deferredModules {
            // A module that fails to load is skipped, as vips_init skips it.
            for name in ["vips-heif.so"] { _ = cvips_load_module(folder + "/" + name) }
        }
        cvips_allow_only_photo_loaders()
    }()

    /// libvips' own `.v` format allowed to load, once: for the tests' oracles
    /// (``ImageComparison``), never for a file Lightbox reads.
    static let vipsFormatAllowed: Void = {
        modulesLoaded
        cvips_allow_vips_format()
    }()

    /// The folder of the libvips library this process loaded: its configured libdir.
    private static func libraryFolder() -> String? {
        guard let library = cvips_library_path().map({ String(cString: $0) }),
            let slash = library.lastIndex(of: "/")
        else { return nil }
        return String(library[..<slash])
    }

    private static var modulesName: String { "vips-modules-\(cvips_version(0)).\(cvips_version(1))" }

    /// libvips' modules folder, next to the libvips library this process loaded.
    private static func moduleFolder() -> String? {
        libraryFolder().flatMap { existingFolder($0 + "/" + modulesName) }
    }

    /// The modules folder libvips looks in under a VIPSHOME prefix: its configured libdir when
    /// the prefix is the configured one (`/usr` for `/usr/lib/x86_64-linux-gnu`), else the
    /// libdir's last component under the prefix (`PREFIX/x86_64-linux-gnu`), as libvips 8.14's
    /// `vips_guess_libdir` does.
    private static func moduleFolder(prefix: String) -> String? {
        guard let libdir = libraryFolder() else { return nil }
        let last = libdir.split(separator: "/").last.map(String.init) ?? "lib"
        if libdir.hasPrefix(prefix + "/lib") { return moduleFolder() }
        return existingFolder(prefix + "/" + last + "/" + modulesName)
    }

    private static func existingFolder(_ folder: String) -> String? {
        var status = stat()
        guard stat(folder, &status) == 0, (status.st_mode & S_IFMT) == S_IFDIR else { return nil }
        return folder
    }

    /// Starts libvips with every loader: what opening a file or an encoded buffer with libvips
    /// needs.
    static func ensureStarted() throws(ImagingError) {
        try ensureCoreStarted()
        modulesLoaded
    }

    /// Starts libvips without the loaders its modules add (HEIF, ImageMagick's formats, PDF):
    /// enough for images in memory, resizing, colour and encoding.
    static func ensureCoreStarted() throws(ImagingError) {
        guard startup.started else {
            throw ImagingError(.libraryUnavailable, startup.failure ?? "libvips failed to start")
        }
    }

    /// Runs `decode`, libvips work on one file that fails on bad input, beside other such work;
    /// when it fails, runs it again with no other such work under way, so that the error's text
    /// is the file's own (`cvips_decodes_share`). Two jobs making thumbnails of damaged TIFFs
    /// gave one file both files' messages and the other an empty reason.
    static func isolatingFailure<T>(_ decode: () throws(ImagingError) -> T) throws(ImagingError) -> T {
        cvips_decodes_share()
        let first = Result { () throws(ImagingError) in try decode() }
        cvips_decodes_release()
        // Without libvips (missing or broken), the error is Lightbox's own and there is no buffer.
        guard case .failure(let error) = first, error.code != .cancelled, cvips_is_open() == 1 else {
            return try first.get()
        }
        cvips_decodes_own()
        defer { cvips_decodes_release() }
        // Lines other decodes left; each of those runs again too.
        _ = takeError()
        return try decode()
    }

    /// The text of libvips' error buffer, which is then cleared; empty when libvips is not open.
    ///
    /// libvips keeps one error buffer per process: outside ``isolatingFailure(_:)``, failures
    /// on several threads at once may mix their messages, which only ever makes an error
    /// message wrong about its reason, never about success.
    static func takeError() -> String {
        guard cvips_is_open() == 1, let buffer = cvips_error_take() else { return "" }
        let text = String(cString: buffer)
        cvips_free(buffer)
        let lines = text.split(separator: "\n").map { String($0) }
        // libvips says nothing for some files it cannot read (a PNG cut in its header only warns).
        guard !lines.isEmpty else { return "libvips gave no reason" }
        // libvips repeats the same failure from each layer; keep each line once.
        var seen = Set<String>()
        return lines.filter { seen.insert($0).inserted }.joined(separator: "; ")
    }
}

/// The one owner of an image: a `VipsImage` reference, or 8-bit pixels Lightbox decoded itself
/// (a `PixelBuffers` block) until something asks for them as a `VipsImage`. Released in
/// `deinit`.
///
/// A camera JPEG is decoded, turned, cropped, resized, converted and encoded by Lightbox's own
/// C (`CJPEG`, `CResample`, `CColour`), none of which needs libvips: held as plain pixels, such
/// a render never opens libvips, whose 103 libraries took two thirds of a process's start
/// (docs/BENCHMARKS.md). `pointer` wraps the pixels in a `VipsImage` the first time any code
/// asks, without copying them, so every libvips operation still takes any image.
final class VipsImageRef {
    /// Plain pixels: rows of `width * bands` bytes, interleaved, sRGB (3 or 4 bands) or grey.
    private struct Pixels {
        let block: UnsafeMutableRawPointer
        let width: Int
        let height: Int
        let bands: Int
    }

    /// Lightbox's own pixels, for the image's whole life: wrapping them in a `VipsImage` does
    /// not move them, and the `VipsImage` this object references keeps them.
    private let plain: Pixels?
    /// The libvips image: given, or made from `plain` once (under `wrapping`: an
    /// ``EditableImage`` is read from several threads).
    private var image: UnsafeMutablePointer<VipsImage>?
    private let wrapping = Mutex(())

    init(_ pointer: UnsafeMutablePointer<VipsImage>) {
        plain = nil
        image = pointer
    }

    /// Takes `block` (from ``PixelBuffers``, given back to it when the image closes): 8-bit
    /// pixels, rows packed.
    init(pixels block: UnsafeMutableRawPointer, width: Int, height: Int, bands: Int) {
        plain = Pixels(block: block, width: width, height: height, bands: bands)
        image = nil
    }

    deinit {
        if let image {
            cvips_unref(image)
        } else if let plain {
            PixelBuffers.shared.release(plain.block)
        }
    }

    /// The libvips image, made from the plain pixels (without a copy) the first time.
    var pointer: UnsafeMutablePointer<VipsImage> {
        guard let plain else { return image! }
        // An address crosses the lock: a pointer is not `Sendable`.
        let address: UInt = wrapping.withLock { _ in
            if let image { return UInt(bitPattern: image) }
            // A missing libvips stops the process here with the reason (`cvips_ready`); the
            // render paths that need libvips have reported it as an error before.
            _ = try? Vips.ensureCoreStarted()
            guard
                // The block becomes the VipsImage's, given back when its last reference (this
                // object's, or a lazy image made from it) goes.
                let wrapped = cvips_image_take_memory(
                    plain.block, plain.width * plain.height * plain.bands, Int32(plain.width), Int32(plain.height),
                    Int32(plain.bands), PixelBuffers.releaseForVips)
            else {
                // libvips only fails to wrap memory it could not allocate its header for.
                fatalError("libvips cannot wrap a \(plain.width)x\(plain.height) image: \(Vips.takeError())")
            }
            image = wrapped
            return UInt(bitPattern: wrapped)
        }
        return UnsafeMutablePointer(bitPattern: address)!
    }

    /// Whether the pixels are Lightbox's own (wrapped for libvips or not).
    var isPlain: Bool { plain != nil }

    var width: Int { plain?.width ?? Int(cvips_image_get_width(pointer)) }
    var height: Int { plain?.height ?? Int(cvips_image_get_height(pointer)) }
    var bands: Int { plain?.bands ?? Int(cvips_image_get_bands(pointer)) }

    /// Whether the pixels are 8-bit and not coded (LABQ, RAD): what Lightbox's own C takes.
    var isUncoded8Bit: Bool {
        plain != nil
            || (cvips_image_get_format(pointer) == VIPS_FORMAT_UCHAR
                && cvips_image_get_coding(pointer) == VIPS_CODING_NONE)
    }

    var interpretation: VipsInterpretation {
        if let plain { return plain.bands >= 3 ? VIPS_INTERPRETATION_sRGB : VIPS_INTERPRETATION_B_W }
        return cvips_image_get_interpretation(pointer)
    }

    /// The pixels in memory, rows of `stride` bytes (libvips renders a lazy image first); nil
    /// when libvips cannot.
    func memoryPixels(_ stride: inout Int) -> UnsafePointer<UInt8>? {
        if let plain {
            stride = plain.width * plain.bands
            return UnsafePointer(plain.block.assumingMemoryBound(to: UInt8.self))
        }
        return cvips_memory_pixels(pointer, &stride)
    }

    /// The orientation tag, 1...8 (1 when absent).
    var orientation: Int {
        var value: Int32 = 1
        if cvips_image_get_typeof(pointer, "orientation") != 0 {
            _ = cvips_image_get_int(pointer, "orientation", &value)
        }
        return (1...8).contains(Int(value)) ? Int(value) : 1
    }

    /// Whether the pixels need a colour transform to be sRGB: an embedded ICC profile (a
    /// Display P3 photo), or another colour space (CMYK, grey, 16-bit). Plain 8-bit sRGB
    /// without a profile, most camera JPEGs, needs none, and skipping it saves a transform
    /// of every pixel.
    var needsSRGBConversion: Bool {
        cvips_image_get_typeof(pointer, "icc-profile-data") != 0
            || cvips_image_get_interpretation(pointer) != VIPS_INTERPRETATION_sRGB
            || cvips_image_get_format(pointer) != VIPS_FORMAT_UCHAR
            || !(3...4).contains(cvips_image_get_bands(pointer))
    }

    /// The ICC profile embedded in an 8-bit RGB image without alpha, which Lightbox's kept
    /// transforms convert after resizing (``Vips/convertToSRGB(_:profile:path:)``); nil for
    /// any other image, which libvips converts itself.
    var rgbICCProfile: [UInt8]? {
        guard cvips_image_get_interpretation(pointer) == VIPS_INTERPRETATION_sRGB,
            cvips_image_get_format(pointer) == VIPS_FORMAT_UCHAR, cvips_image_get_bands(pointer) == 3,
            cvips_image_get_coding(pointer) == VIPS_CODING_NONE
        else { return nil }
        return iccProfile
    }

    /// The embedded ICC profile's bytes, when there is one.
    var iccProfile: [UInt8]? {
        var data: UnsafeRawPointer?
        var length = 0
        guard cvips_image_get_typeof(pointer, "icc-profile-data") != 0,
            cvips_image_get_blob(pointer, "icc-profile-data", &data, &length) == 0, let data, length > 0
        else { return nil }
        return [UInt8](UnsafeRawBufferPointer(start: data, count: length))
    }

    /// Whether the loader marked the image interlaced (an Adam7 PNG), which it decodes whole.
    var isInterlaced: Bool {
        var value: Int32 = 0
        guard cvips_image_get_typeof(pointer, "interlaced") != 0 else { return false }
        _ = cvips_image_get_int(pointer, "interlaced", &value)
        return value != 0
    }

    /// The bytes the image's pixels take in the format it was loaded in (16-bit samples are two).
    var wholeBytes: Int {
        let sample =
            switch cvips_image_get_format(pointer) {
            case VIPS_FORMAT_UCHAR, VIPS_FORMAT_CHAR: 1
            case VIPS_FORMAT_USHORT, VIPS_FORMAT_SHORT: 2
            case VIPS_FORMAT_DOUBLE, VIPS_FORMAT_DPCOMPLEX: 8
            default: 4
            }
        // Width and height are libvips' ints, each under 2^31: no product overflows.
        return width * height * bands * sample
    }

    /// The name of the loader libvips chose ("jpegload", "heifload", ...).
    var loader: String? {
        var value: UnsafePointer<CChar>?
        guard cvips_image_get_typeof(pointer, "vips-loader") != 0,
            cvips_image_get_string(pointer, "vips-loader", &value) == 0, let value
        else { return nil }
        return String(cString: value)
    }

}

extension Vips {
    static func open(_ path: String, failOnTruncation: Bool, randomAccess: Bool = false) throws(ImagingError)
        -> VipsImageRef
    {
        try ensureStarted()
        // What libvips' loaders would believe and allocate, refused first.
        try FileBytes.checkStructure(path)
        guard
            let image = cvips_image_new_from_file(
                path, failOnTruncation ? VIPS_FAIL_ON_TRUNCATED : VIPS_FAIL_ON_NONE,
                randomAccess ? VIPS_ACCESS_RANDOM : VIPS_ACCESS_SEQUENTIAL)
        else {
            let reason = takeError()
            if reason.contains("operation is blocked") || reason.contains("not a known file format") {
                throw ImagingError(
                    .unreadable,
                    "not an image format Lightbox reads (JPEG, HEIF, AVIF, PNG, WebP, GIF, TIFF, RAW previews)",
                    path: path)
            }
            throw ImagingError(.unreadable, "not an image libvips can read (\(reason))", path: path)
        }
        return VipsImageRef(image)
    }

    /// A shrink-on-load thumbnail from a file whose header is open, upright by the file's EXIF
    /// orientation, or by `orientation` when given (a correction from an XMP sidecar; the file
    /// itself is never changed). With `convertingToSRGB`, libvips converts the colours to sRGB
    /// too (``VipsImageRef/needsSRGBConversion`` says when that is needed).
    static func thumbnail(
        _ path: String, header: VipsImageRef, width: Int, height: Int, fill: Bool, upscale: Bool, orientation: Int?,
        convertingToSRGB: Bool
    ) throws(ImagingError) -> VipsImageRef {
        // With an orientation of its own, libvips must not turn the image by the file's; a
        // quarter turn applied afterwards swaps the box asked for.
        let override = orientation.flatMap { (1...8).contains($0) ? $0 : nil }
        let swaps = override.map { (5...8).contains($0) } ?? false
        var out: UnsafeMutablePointer<VipsImage>?
        let status = cvips_thumbnail(
            path, &out, Int32(swaps ? height : width), Int32(swaps ? width : height),
            upscale ? VIPS_SIZE_BOTH : VIPS_SIZE_DOWN,
            fill ? VIPS_INTERESTING_CENTRE : VIPS_INTERESTING_NONE,
            VIPS_FAIL_ON_TRUNCATED, convertingToSRGB ? 1 : 0, override == nil ? 0 : 1)
        guard status == 0, let out else {
            let reason = takeError()
            let code: ImagingError.Code = reason.contains("not a known file format") ? .unreadable : .corrupt
            throw ImagingError(code, "cannot decode the image (\(reason))", path: path)
        }
        let image = VipsImageRef(out)
        guard let override else { return image }
        // The file is read in order; turning needs the thumbnail in memory first.
        let memory = try copyToMemory(image, path: path)
        cvips_image_set_int(memory.pointer, "orientation", Int32(override))
        return try autorotate(memory)
    }

    /// The image decoded into memory, so that several outputs read it without decoding again.
    /// With a monitor, the computation reports progress and stops when the monitor says so.
    static func copyToMemory(
        _ image: VipsImageRef, path: String, monitor: RenderMonitor? = nil
    ) throws(ImagingError) -> VipsImageRef {
        let (memory, killed) = watching(image, monitor) { cvips_image_copy_memory(image.pointer) }
        guard let memory else {
            if killed {
                _ = takeError()
                throw ImagingError(.cancelled, "the render was cancelled", path: path)
            }
            throw ImagingError(.corrupt, "cannot decode the image (\(takeError()))", path: path)
        }
        return VipsImageRef(memory)
    }

    /// Runs `compute`, which evaluates `image`, with `monitor` told of its progress and able to
    /// stop it; also says whether the monitor stopped it.
    static func watching<T>(_ image: VipsImageRef, _ monitor: RenderMonitor?, _ compute: () -> T) -> (T, killed: Bool) {
        guard let monitor else { return (compute(), false) }
        let box = RenderMonitorBox(monitor)
        let watch = UnsafeMutablePointer<cvips_monitor>.allocate(capacity: 1)
        defer { watch.deallocate() }
        let result = box.withContext { context in
            watch.initialize(to: cvips_monitor(function: RenderMonitor.callback, context: context, killed: 0))
            let handler = cvips_watch(image.pointer, watch)
            defer { cvips_unwatch(image.pointer, handler) }
            return compute()
        }
        return (result, watch.pointee.killed != 0)
    }

    /// An encoded image held in memory, decoded into memory (libvips does not copy the bytes
    /// it reads from, so the pixels are copied out while they are alive).
    static func decodeEncoded(_ bytes: [UInt8]) throws(ImagingError) -> VipsImageRef {
        try ensureStarted()
        let result: UnsafeMutablePointer<VipsImage>? = bytes.withUnsafeBytes { raw in
            guard let image = cvips_image_new_from_buffer(raw.baseAddress, raw.count) else { return nil }
            defer { cvips_unref(image) }
            return cvips_image_copy_memory(image)
        }
        guard let result else { throw ImagingError(.unreadable, "not an encoded image (\(takeError()))") }
        return VipsImageRef(result)
    }

    /// Exactly `width`x`height`, resampled from the whole image (aspect changes only by rounding).
    ///
    /// 8-bit grey and RGB images are downsized by `CResample`'s Lanczos-3 filter, the kernel
    /// libvips uses, three to four times faster; anything else (alpha, 16-bit, enlarging) by
    /// `vips_thumbnail_image`.
    static func resize(_ image: VipsImageRef, width: Int, height: Int) throws(ImagingError) -> VipsImageRef {
        let width = max(1, width)
        let height = max(1, height)
        if let resampled = try resample(image, width: width, height: height) { return resampled }
        return try resizeWithLibvips(image, width: width, height: height)
    }

    /// Exactly `width`x`height` by `vips_thumbnail_image` alone: any image, and the oracle the
    /// tests hold ``resize(_:width:height:)`` to.
    static func resizeWithLibvips(_ image: VipsImageRef, width: Int, height: Int) throws(ImagingError) -> VipsImageRef {
        var out: UnsafeMutablePointer<VipsImage>?
        guard cvips_thumbnail_image(image.pointer, &out, Int32(max(1, width)), Int32(max(1, height)), 0, 0) == 0,
            let out
        else {
            throw ImagingError(.corrupt, "cannot resize the image (\(takeError()))")
        }
        return VipsImageRef(out)
    }

    /// The image downsized by `CResample`, or nil when it does not take the image.
    private static func resample(_ image: VipsImageRef, width: Int, height: Int) throws(ImagingError) -> VipsImageRef? {
        let bands = image.bands
        guard OwnCode.lanczos.isOn, bands == 1 || bands == 3, image.isUncoded8Bit, width <= image.width,
            height <= image.height, (width, height) != (image.width, image.height)
        else { return nil }
        return try derive(from: image, width: width, height: height, bands: bands, doing: "resize the image") {
            pixels, stride, output in
            cresample_lanczos3(
                pixels, Int32(image.width), Int32(image.height), stride, Int32(bands), output, Int32(width),
                Int32(height),
                width * bands) == 0
        }
    }

    /// A new image of `width`x`height`x`bands` whose pixels `fill` writes (rows packed) from
    /// `image`'s pixels in memory (rows `stride` bytes apart), returning false when it runs
    /// out of memory. The pixels come from ``PixelBuffers`` and go back there with the image.
    private static func derive(
        from image: VipsImageRef, width: Int, height: Int, bands: Int, doing action: String, path: String? = nil,
        _ fill: (_ pixels: UnsafePointer<UInt8>, _ stride: Int, _ output: UnsafeMutablePointer<UInt8>) -> Bool
    ) throws(ImagingError) -> VipsImageRef {
        var stride = 0
        guard let pixels = image.memoryPixels(&stride) else {
            throw ImagingError(.corrupt, "cannot \(action) (\(takeError()))", path: path)
        }
        let size = width * height * bands
        guard let output = PixelBuffers.shared.allocate(size) else {
            throw ImagingError(.tooLarge, "no memory to \(action) (\(width)x\(height))", path: path)
        }
        guard fill(pixels, stride, output.assumingMemoryBound(to: UInt8.self)) else {
            PixelBuffers.shared.release(output)
            throw ImagingError(.tooLarge, "no memory to \(action) (\(width)x\(height))", path: path)
        }
        return VipsImageRef(pixels: output, width: width, height: height, bands: bands)
    }

    /// Shrunk by a whole factor with a box filter.
    static func shrink(_ image: VipsImageRef, by factor: Int) throws(ImagingError) -> VipsImageRef {
        var out: UnsafeMutablePointer<VipsImage>?
        guard cvips_shrink(image.pointer, &out, Double(factor), Double(factor)) == 0, let out else {
            throw ImagingError(.corrupt, "cannot shrink the image (\(takeError()))")
        }
        return VipsImageRef(out)
    }

    /// A rectangle of the image.
    static func extract(_ image: VipsImageRef, left: Int, top: Int, width: Int, height: Int) throws(ImagingError)
        -> VipsImageRef
    {
        if image.isPlain {
            guard left >= 0, top >= 0, width > 0, height > 0, left + width <= image.width, top + height <= image.height
            else {
                throw ImagingError(
                    .corrupt, "cannot crop the image (\(width)x\(height) at \(left),\(top) is outside it)")
            }
            let bands = image.bands
            return try derive(from: image, width: width, height: height, bands: bands, doing: "crop the image") {
                pixels, stride, output in
                for row in 0..<height {
                    (output + row * width * bands).update(
                        from: pixels + (top + row) * stride + left * bands, count: width * bands)
                }
                return true
            }
        }
        var out: UnsafeMutablePointer<VipsImage>?
        guard cvips_extract_area(image.pointer, &out, Int32(left), Int32(top), Int32(width), Int32(height)) == 0,
            let out
        else {
            throw ImagingError(.corrupt, "cannot crop the image (\(takeError()))")
        }
        return VipsImageRef(out)
    }

    /// Converted from the colour space `profile` describes to sRGB.
    ///
    /// 8-bit RGB from an RGB profile goes through a transform made once per profile
    /// (``ColourTransforms``), or stays as it is when the profile is sRGB to the last bit;
    /// anything else goes through `vips_icc_transform`.
    static func convertToSRGB(_ image: VipsImageRef, profile: [UInt8], path: String) throws(ImagingError)
        -> VipsImageRef
    {
        if OwnCode.colour.isOn, image.bands == 3, image.isUncoded8Bit,
            let converted = try ColourTransforms.shared.withTransformToSRGB(
                from: profile,
                { transform throws(ImagingError) in
                    ccolour_is_identity(transform) == 1 ? image : try apply(transform, to: image, path: path)
                })
        {
            return converted
        }
        return try convertToSRGBWithLibvips(image, profile: profile, path: path)
    }

    /// `image`'s pixels through a Little CMS transform, into a new image.
    static func apply(_ transform: UnsafeMutableRawPointer, to image: VipsImageRef, path: String) throws(ImagingError)
        -> VipsImageRef
    {
        let (width, height) = (image.width, image.height)
        let action = "convert the image's colours to sRGB"
        return try derive(from: image, width: width, height: height, bands: 3, doing: action, path: path) {
            pixels, stride, output in
            ccolour_apply(transform, pixels, stride, output, width * 3, Int32(width), Int32(height))
            return true
        }
    }

    /// Converted by `vips_icc_transform` alone: the oracle the tests hold ``convertToSRGB`` to.
    static func convertToSRGBWithLibvips(_ image: VipsImageRef, profile: [UInt8], path: String) throws(ImagingError)
        -> VipsImageRef
    {
        var out: UnsafeMutablePointer<VipsImage>?
        let status = profile.withUnsafeBytes { cvips_icc_to_srgb(image.pointer, &out, $0.baseAddress, $0.count) }
        guard status == 0, let out else {
            throw ImagingError(.corrupt, "cannot convert the image's colours to sRGB (\(takeError()))", path: path)
        }
        return VipsImageRef(out)
    }

    /// A decoded image in its stored orientation, turned upright by `orientation` (EXIF 1...8)
    /// into memory: 8-bit pixels moved by `corient`, anything else by `vips_autorot`.
    static func upright(_ image: VipsImageRef, orientation: Int, path: String) throws(ImagingError) -> VipsImageRef {
        guard orientation != 1 else { return image }
        let bands = image.bands
        guard OwnCode.orientation.isOn, (1...4).contains(bands), (1...8).contains(orientation), image.isUncoded8Bit
        else { return try uprightWithLibvips(image, orientation: orientation, path: path) }
        let swaps = orientation >= 5
        let (width, height) = swaps ? (image.height, image.width) : (image.width, image.height)
        return try derive(
            from: image, width: width, height: height, bands: bands, doing: "turn the image upright", path: path
        ) {
            pixels, stride, output in
            corient(
                pixels, Int32(image.width), Int32(image.height), stride, Int32(bands), Int32(orientation), output,
                width * bands) == 0
        }
    }

    /// Turned upright by `vips_autorot` alone (the tests' reference for ``upright``).
    static func uprightWithLibvips(_ image: VipsImageRef, orientation: Int, path: String) throws(ImagingError)
        -> VipsImageRef
    {
        cvips_image_set_int(image.pointer, "orientation", Int32(orientation))
        return try copyToMemory(try autorotate(image), path: path)
    }

    static func autorotate(_ image: VipsImageRef) throws(ImagingError) -> VipsImageRef {
        var out: UnsafeMutablePointer<VipsImage>?
        guard cvips_autorot(image.pointer, &out) == 0, let out else {
            throw ImagingError(.corrupt, "cannot rotate the image (\(takeError()))")
        }
        return VipsImageRef(out)
    }

    /// Encodes an image. JPEG from 8-bit sRGB or grey pixels goes to libjpeg-turbo directly
    /// (`cjpeg_encode`, the same settings as `cvips_jpegsave_buffer`): libvips' `jpegsave`
    /// hands the rows of an image already in memory to its worker threads and waits for each
    /// batch, which made it slower (docs/BENCHMARKS.md).
    static func encode(_ image: VipsImageRef, as format: EncodedImageFormat, quality: Int) throws(ImagingError)
        -> [UInt8]
    {
        if format == .jpeg, let bytes = try encodeJPEGDirectly(image, quality: quality) { return bytes }
        return try encodeWithLibvips(image, as: format, quality: quality)
    }

    /// JPEG by `cjpeg_encode`, or nil for an image it does not take (other formats, bands or
    /// colour spaces, which libvips converts first).
    private static func encodeJPEGDirectly(_ image: VipsImageRef, quality: Int) throws(ImagingError) -> [UInt8]? {
        let bands = image.bands
        let interpretation = image.interpretation
        guard image.isUncoded8Bit,
            (bands == 3 && interpretation == VIPS_INTERPRETATION_sRGB)
                || (bands == 1 && interpretation == VIPS_INTERPRETATION_B_W)
        else { return nil }
        var stride = 0
        guard let pixels = image.memoryPixels(&stride) else {
            throw ImagingError(.encodingFailed, "cannot encode jpeg (\(takeError()))")
        }
        var output: UnsafeMutablePointer<UInt8>?
        var length = 0
        var message = [CChar](repeating: 0, count: 256)
        let status = cjpeg_encode(
            pixels, Int32(image.width), Int32(image.height), stride, Int32(bands), Int32(quality), &output, &length,
            &message, message.count)
        guard status == CJPEG_OK, let output else {
            throw ImagingError(.encodingFailed, "cannot encode jpeg (\(JPEGDecoder.text(message)))")
        }
        defer { free(output) }
        return Array(UnsafeBufferPointer(start: output, count: length))
    }

    /// Encoded by libvips' savers alone (the tests' reference for ``encode``).
    static func encodeWithLibvips(_ image: VipsImageRef, as format: EncodedImageFormat, quality: Int)
        throws(ImagingError)
        -> [UInt8]
    {
        var buffer: UnsafeMutableRawPointer?
        var length = 0
        let status: Int32
        switch format {
        case .jpeg: status = cvips_jpegsave_buffer(image.pointer, &buffer, &length, Int32(quality))
        case .webp: status = cvips_webpsave_buffer(image.pointer, &buffer, &length, Int32(quality))
        }
        guard status == 0, let buffer else {
            throw ImagingError(.encodingFailed, "cannot encode \(format.rawValue) (\(takeError()))")
        }
        defer { cvips_free(buffer) }
        return Array(UnsafeRawBufferPointer(start: buffer, count: length))
    }
}

// MARK: - Operations

/// Every other libvips operation Lightbox composes (the recipe pipeline, edits' metadata, movie
/// frames, the tests' oracles), one function each, so that no raw call lives outside this file.
extension Vips {
    /// Runs one libvips call that makes an image, or throws with libvips' message (naming
    /// `path` when there is one).
    static func call(
        _ what: String, path: String? = nil, _ body: (inout UnsafeMutablePointer<VipsImage>?) -> Int32
    ) throws(ImagingError) -> VipsImageRef {
        var out: UnsafeMutablePointer<VipsImage>?
        guard body(&out) == 0, let out else {
            throw ImagingError(.corrupt, "cannot \(what) (\(takeError()))", path: path)
        }
        return VipsImageRef(out)
    }

    /// Alpha flattened onto white.
    static func flattenedOnWhite(_ image: VipsImageRef) throws(ImagingError) -> VipsImageRef {
        try call("flatten") { cvips_flatten_white(image.pointer, &$0) }
    }

    /// Whether the image's pixels are sRGB, by its interpretation.
    static func isSRGB(_ image: VipsImageRef) -> Bool {
        cvips_image_get_interpretation(image.pointer) == VIPS_INTERPRETATION_sRGB
    }

    /// Whether the image's pixels are 8 bits a band.
    static func isUChar(_ image: VipsImageRef) -> Bool {
        cvips_image_get_format(image.pointer) == VIPS_FORMAT_UCHAR
    }

    /// The image in sRGB (grey, CMYK and 16-bit images converted).
    static func toSRGB(_ image: VipsImageRef) throws(ImagingError) -> VipsImageRef {
        try call("convert to sRGB") { cvips_to_srgb(image.pointer, &$0) }
    }

    /// The image in 8 bits a band, clipped.
    static func toUChar(_ image: VipsImageRef) throws(ImagingError) -> VipsImageRef {
        try call("convert to 8 bits") { cvips_to_uchar(image.pointer, &$0) }
    }

    /// `a * image + b` per band, float out.
    static func linear(_ image: VipsImageRef, _ a: [Double], _ b: [Double]) throws(ImagingError) -> VipsImageRef {
        try call("linear") { cvips_linear(image.pointer, &$0, a, b, Int32(a.count)) }
    }

    /// A Gaussian blur of standard deviation `sigma` pixels.
    static func gaussianBlur(_ image: VipsImageRef, sigma: Double, _ what: String = "blur") throws(ImagingError)
        -> VipsImageRef
    {
        try call(what) { cvips_gaussblur(image.pointer, &$0, sigma) }
    }

    /// `a + b`, pixel by pixel.
    static func add(_ a: VipsImageRef, _ b: VipsImageRef, _ what: String) throws(ImagingError) -> VipsImageRef {
        try call(what) { cvips_add(a.pointer, b.pointer, &$0) }
    }

    /// `a - b`, pixel by pixel.
    static func subtract(_ a: VipsImageRef, _ b: VipsImageRef, _ what: String) throws(ImagingError) -> VipsImageRef {
        try call(what) { cvips_subtract(a.pointer, b.pointer, &$0) }
    }

    /// `a * b`, pixel by pixel.
    static func multiply(_ a: VipsImageRef, _ b: VipsImageRef, _ what: String) throws(ImagingError) -> VipsImageRef {
        try call(what) { cvips_multiply(a.pointer, b.pointer, &$0) }
    }

    /// Each value's absolute value.
    static func absolute(_ image: VipsImageRef, _ what: String) throws(ImagingError) -> VipsImageRef {
        try call(what) { cvips_abs(image.pointer, &$0) }
    }

    /// 255 where a value is above `threshold`, 0 elsewhere.
    static func moreThan(_ image: VipsImageRef, _ threshold: Double, _ what: String) throws(ImagingError)
        -> VipsImageRef
    {
        try call(what) { cvips_more_than(image.pointer, &$0, threshold) }
    }

    /// The image convolved with a `width` by `height` kernel of floats.
    static func convolve(_ image: VipsImageRef, _ kernel: [Double], width: Int, height: Int, _ what: String)
        throws(ImagingError) -> VipsImageRef
    {
        try call(what) { cvips_convf(image.pointer, &$0, kernel, Int32(width), Int32(height)) }
    }

    /// The bands recombined by a `rows` by `columns` matrix (one output band a row).
    static func recombined(_ image: VipsImageRef, _ matrix: [Double], rows: Int, columns: Int, _ what: String)
        throws(ImagingError) -> VipsImageRef
    {
        try call(what) { cvips_recomb(image.pointer, &$0, matrix, Int32(rows), Int32(columns)) }
    }

    /// Each 8-bit value mapped through a table of 256 entries a band.
    static func mapped(_ image: VipsImageRef, through table: [Float], bands: Int, _ what: String)
        throws(ImagingError) -> VipsImageRef
    {
        try call(what) { cvips_maplut(image.pointer, &$0, table, Int32(bands)) }
    }

    /// The image turned clockwise by 90, 180 or 270 degrees (any other angle: as it is).
    static func rotated(_ image: VipsImageRef, degrees: Int, _ what: String = "rotate", path: String? = nil)
        throws(ImagingError) -> VipsImageRef
    {
        let angles = [90: VIPS_ANGLE_D90, 180: VIPS_ANGLE_D180, 270: VIPS_ANGLE_D270]
        guard let angle = angles[degrees] else { return image }
        return try call(what, path: path) { cvips_rot(image.pointer, &$0, angle) }
    }

    /// Rotated by `degrees` with bicubic interpolation and cut to `width` by `height` around
    /// the centre.
    static func straightened(_ image: VipsImageRef, degrees: Double, width: Int, height: Int) throws(ImagingError)
        -> VipsImageRef
    {
        try call("straighten") { cvips_straighten(image.pointer, &$0, degrees, Int32(width), Int32(height)) }
    }

    /// Mirrored left to right, or top to bottom.
    static func flipped(_ image: VipsImageRef, vertical: Bool) throws(ImagingError) -> VipsImageRef {
        try call("flip") { cvips_flip(image.pointer, &$0, vertical ? 1 : 0) }
    }

    /// A copy of the image's header over the same pixels, whose metadata can change alone.
    static func copy(_ image: VipsImageRef, path: String) throws(ImagingError) -> VipsImageRef {
        try call("prepare the render", path: path) { cvips_copy(image.pointer, &$0) }
    }

    /// Converted to sRGB from the profile the file embeds.
    static func embeddedProfileToSRGB(_ image: VipsImageRef, path: String) throws(ImagingError) -> VipsImageRef {
        try call("convert the image's colours to sRGB", path: path) { cvips_icc_transform_embedded(image.pointer, &$0) }
    }

    /// Resized to exactly `width` by `height` by libvips alone (`fill`: filled and cropped around
    /// the centre), converted to sRGB when asked: the tests' reference thumbnail.
    static func thumbnailOfImage(
        _ image: VipsImageRef, width: Int, height: Int, fill: Bool, convertingToSRGB: Bool, path: String
    ) throws(ImagingError) -> VipsImageRef {
        try call("resize", path: path) {
            cvips_thumbnail_image(
                image.pointer, &$0, Int32(width), Int32(height), fill ? 1 : 0, convertingToSRGB ? 1 : 0)
        }
    }

    // MARK: Metadata

    /// Whether the image carries the metadata field `name`.
    static func hasField(_ image: VipsImageRef, _ name: String) -> Bool {
        cvips_image_get_typeof(image.pointer, name) != 0
    }

    /// Removes the metadata field `name`, and with `prefixed` every field starting so.
    static func removeField(_ image: VipsImageRef, _ name: String, prefixed: Bool = false) {
        if prefixed { cvips_remove_prefixed(image.pointer, name) } else { cvips_remove(image.pointer, name) }
    }

    /// Sets the integer metadata field `name`.
    static func setField(_ image: VipsImageRef, _ name: String, _ value: Int32) {
        cvips_image_set_int(image.pointer, name, value)
    }

    /// The bytes of the blob field `name`, nil when there is none or it is empty.
    static func blob(_ image: VipsImageRef, _ name: String) -> [UInt8]? {
        var data: UnsafeRawPointer?
        var length = 0
        guard hasField(image, name), cvips_image_get_blob(image.pointer, name, &data, &length) == 0, let data,
            length > 0
        else { return nil }
        return Array(UnsafeRawBufferPointer(start: data, count: length))
    }

    /// Sets the blob field `name` to a copy of `bytes`.
    static func setBlob(_ image: VipsImageRef, _ name: String, _ bytes: [UInt8]) {
        bytes.withUnsafeBytes { cvips_set_blob(image.pointer, name, $0.baseAddress, $0.count) }
    }

    /// Copies the blob field `name` from one image to another, when the first has it.
    static func copyBlob(_ name: String, from source: VipsImageRef, to target: VipsImageRef) {
        cvips_copy_blob(source.pointer, target.pointer, name)
    }

    // MARK: Memory

    /// An 8-bit RGB frame's pixels wrapped without a copy; they must outlive the image.
    static func borrowingFrame(_ pixels: UnsafePointer<UInt8>, width: Int, height: Int) throws(ImagingError)
        -> VipsImageRef
    {
        guard let borrowed = cvips_image_borrow_memory(pixels, width * height * 3, Int32(width), Int32(height), 3)
        else {
            throw ImagingError(.corrupt, "cannot wrap a movie frame (\(takeError()))")
        }
        return VipsImageRef(borrowed)
    }

    /// The image computed into new memory from `malloc`, for a caller that frees it with
    /// `free()` (libvips allocates with g_malloc, which is malloc since GLib 2.46), and its length.
    static func computedPixels(_ image: VipsImageRef, _ what: String) throws(ImagingError)
        -> (UnsafeMutableRawPointer, Int)
    {
        var length = 0
        guard let memory = cvips_pixels(image.pointer, &length) else {
            throw ImagingError(.corrupt, "cannot compute \(what) (\(takeError()))")
        }
        return (memory, length)
    }

    /// The width and height in an encoded image's header, read while `bytes` are alive
    /// (libvips does not copy them); nil when they are not an image libvips reads.
    static func size(ofEncoded bytes: [UInt8]) -> (width: Int, height: Int)? {
        bytes.withUnsafeBytes { raw in
            guard let image = cvips_image_new_from_buffer(raw.baseAddress, raw.count) else { return nil }
            let reference = VipsImageRef(image)
            return (reference.width, reference.height)
        }
    }

    /// glibc's allocator told to map every block of `threshold` bytes or more (and give it back
    /// on free).
    static func mapLargeBlocks(from threshold: Int32) { cvips_map_large_blocks(threshold) }

    /// glibc's allocator told to keep up to `threshold` bytes free at the top of a heap.
    static func keepHeapTop(upTo threshold: Int32) { cvips_keep_heap_top(threshold) }

    // MARK: The tests' oracles

    /// The mean absolute difference per channel value between two images of one size.
    static func meanAbsoluteDifference(_ a: VipsImageRef, _ b: VipsImageRef) throws(ImagingError) -> Double {
        var average = 0.0
        guard cvips_subtract_abs_avg(a.pointer, b.pointer, &average) == 0 else {
            throw ImagingError(.corrupt, "cannot compare (\(takeError()))")
        }
        return average
    }

    /// A file in any format libvips reads, its own `.v` among them, with random access: for
    /// the tests' oracles, never for a file Lightbox imports.
    static func openForComparison(_ path: String) throws(ImagingError) -> VipsImageRef {
        vipsFormatAllowed
        guard let image = cvips_open_random(path) else {
            throw ImagingError(.unreadable, "cannot open (\(takeError()))", path: path)
        }
        return VipsImageRef(image)
    }
}

// MARK: - Writing

extension Vips {
    /// Writes `image` as a JPEG file, computing the pipeline strip by strip on every core.
    static func save(
        _ image: VipsImageRef, jpegAt outputPath: String, quality: Int, monitor: RenderMonitor?, path: String
    ) throws(ImagingError) {
        let (status, killed) = watching(image, monitor) {
            cvips_jpegsave_file(image.pointer, outputPath, Int32(quality))
        }
        guard status == 0 else {
            let reason = takeError()
            unlink(outputPath)
            if killed { throw ImagingError(.cancelled, "the render was cancelled", path: path) }
            throw ImagingError(.encodingFailed, "cannot write the rendered JPEG (\(reason))", path: outputPath)
        }
    }

    /// Writes an image losslessly in libvips' own format (tests compare such files).
    static func writeLossless(_ image: VipsImageRef, to path: String) throws(ImagingError) {
        guard cvips_write_file(image.pointer, path) == 0 else {
            throw ImagingError(.encodingFailed, "cannot write (\(takeError()))", path: path)
        }
    }

    /// The pixels of an 8-bit image, interleaved (tests compare them).
    static func pixels(_ image: VipsImageRef) throws(ImagingError) -> [UInt8] {
        var length = 0
        guard let memory = cvips_pixels(image.pointer, &length) else {
            throw ImagingError(.corrupt, "cannot read the pixels (\(takeError()))")
        }
        defer { cvips_free(memory) }
        return Array(UnsafeRawBufferPointer(start: memory, count: length))
    }
}
