// swift-tools-version:6.1

import PackageDescription

let strictSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
]

// Our own C (decoding, resizing, colour, edit filters, HEIF tiles) optimised in a debug build
// too when LIGHTBOX_OPTIMISE_C is 1, as the Makefile sets for every build it makes: unoptimised,
// it was most of the image tests' processor time (docs/BENCHMARKS.md, make test). Opt-in, since
// SwiftPM refuses unsafe flags in a package another one depends on by version.
let ownC: [CSetting] =
    Context.environment["LIGHTBOX_OPTIMISE_C"] == "1"
    ? [.unsafeFlags(["-O2"], .when(configuration: .debug))] : []

let package = Package(
    name: "Lightbox",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "Lightbox", targets: ["Lightbox"]),
        .library(name: "LightboxStore", targets: ["LightboxStore"]),
        .library(name: "LightboxImaging", targets: ["LightboxImaging"]),
        .library(name: "LightboxMetadata", targets: ["LightboxMetadata"]),
        .library(name: "LightboxCapture", targets: ["LightboxCapture"]),
        .library(name: "LightboxServer", targets: ["LightboxServer"]),
        .library(name: "LightboxS3", targets: ["LightboxS3"]),
        .library(name: "LightboxAnalysis", targets: ["LightboxAnalysis"]),
        .executable(name: "lightbox", targets: ["lightbox"]),
        .executable(name: "lightbox-bench", targets: ["lightbox-bench"]),
        .executable(name: "lightbox-fuzz", targets: ["lightbox-fuzz"]),
        .executable(name: "lightbox-confine", targets: ["lightbox-confine"]),
    ],
    dependencies: [
        .package(url: "https://github.com/groue/GRDB.swift.git", from: "7.10.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.0"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.0"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.6.0"),
        // Already Hummingbird's; named so that `lightbox serve` can tell a port in use
        // (NIOCore's IOError) from other failures.
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.80.0"),
        // Already Hummingbird's; named so that a stream of changes ends when the server shuts down.
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.0.0"),
        // SHA-256 of every original: BoringSSL's assembly uses the CPU's SHA extensions,
        // several times faster than a hash we would write in Swift.
        // Version 4: its CryptoExtras has scrypt, for passwords.
        .package(url: "https://github.com/apple/swift-crypto.git", "4.0.0"..<"5.0.0"),
        // Originals in S3-compatible object storage: an HTTP/1.1 client on SwiftNIO with
        // connection pooling, TLS and streamed bodies; no S3 package is available here, and the
        // requests are signed by our own small Signature Version 4 (LightboxS3).
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
        // The catalog on PostgreSQL when one machine is outgrown: Vapor's client, on SwiftNIO,
        // speaks the protocol (extended queries with bound values, LISTEN/NOTIFY, Unix sockets);
        // a client we would write could only be a lesser copy.
        .package(url: "https://github.com/vapor/postgres-nio.git", from: "1.33.0"),
        // Already postgres-nio's and async-http-client's; named for a catalog's TLS connection.
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.30.0"),
        // Already Hummingbird's; named so a channel handler of the server's can read the HTTP
        // parts Hummingbird's pipeline passes (a request body's pace).
        .package(url: "https://github.com/apple/swift-nio-extras.git", from: "1.20.0"),
    ],
    targets: [
        // GLib and GObject, linked: libvips' images are GObjects.
        .systemLibrary(
            name: "CGLib",
            pkgConfig: "gobject-2.0",
            providers: [.apt(["libglib2.0-dev"])]
        ),
        // libvips, opened on first use through a table of its functions (CVips.h): linked, its
        // 103 libraries were two thirds of every process's start. Its headers are Debian's
        // (libvips-dev, under the default include path).
        .target(
            name: "CVips", dependencies: ["CGLib"], cSettings: ownC,
            linkerSettings: [.linkedLibrary("gmodule-2.0")]),
        // Camera JPEGs decoded from one buffer with libjpeg-turbo's fast Huffman path, DCT
        // scaling, progress and cancellation, and at 1/8 scale by our own decoder
        // (cjpeg_fast.c); everything else goes through libvips. C, because libjpeg reports
        // errors by longjmp, which Swift code must never be jumped over.
        .target(
            name: "CJPEG", cSettings: ownC,
            linkerSettings: [.linkedLibrary("jpeg")]
        ),
        // A movie's poster frame, its edits and a HEIF's HEVC tiles through FFmpeg's libraries
        // from Debian: no package of ours could decode H.264 and HEVC, which is what phones
        // record. They are opened with dlopen on the first movie, not linked: linked, they add 63
        // libraries to every process's start.
        .target(
            name: "CVideo", cSettings: ownC,
            linkerSettings: [.linkedLibrary("dl"), .linkedLibrary("pthread"), .linkedLibrary("m")]
        ),
        // Capture through FFmpeg's libavdevice: cameras (V4L2, described by their ioctls),
        // microphones, the synthetic camera, and the recorder that encodes frames as they
        // arrive. FFmpeg's table of functions is CVideo's.
        .target(
            name: "CCapture", dependencies: ["CVideo"], cSettings: ownC,
            linkerSettings: [.linkedLibrary("dl"), .linkedLibrary("pthread"), .linkedLibrary("m")]
        ),
        // HEIF images and their embedded thumbnails decoded by libheif from Debian (its HEVC and
        // AV1 codecs with it), opened with dlopen on the first HEIF: libvips' loader was several
        // times slower for an iPhone's embedded thumbnail (docs/BENCHMARKS.md).
        // A phone's grid of HEVC tiles goes through FFmpeg's HEVC decoder (`CVideo`) one tile at a
        // time: less processor time than libde265, and one tile held instead of the image.
        .target(
            name: "CHEIF", dependencies: ["CVideo"], cSettings: ownC,
            linkerSettings: [.linkedLibrary("dl"), .linkedLibrary("pthread"), .linkedLibrary("m")]),
        // Direct I/O for originals: a GNU extension Swift's Glibc module does not show.
        .target(name: "CDirectIO", cSettings: ownC),
        // A recipe's per-pixel filters fused into one libvips stage of our own C: one pass in
        // place of several float operations (docs/BENCHMARKS.md, Edits).
        .target(
            name: "CEdit", dependencies: ["CVips"], cSettings: ownC,
            linkerSettings: [.linkedLibrary("m")]),
        // Downsizing with a Lanczos-3 filter in SIMD C: libvips 8.14's reduction is scalar and
        // took as long as the decode of a photo at 1024 px (docs/BENCHMARKS.md, Images).
        .target(
            name: "CResample", cSettings: ownC, linkerSettings: [.linkedLibrary("m")]),
        // ICC profiles to sRGB through Little CMS (libvips' own colour engine, from Debian)
        // with one transform per profile: libvips makes a new one for every image.
        .target(
            name: "CColour", cSettings: ownC, linkerSettings: [.linkedLibrary("lcms2")]),
        .target(
            name: "LightboxImaging",
            dependencies: ["CVips", "CJPEG", "CVideo", "CHEIF", "CEdit", "CResample", "CColour", "LightboxMetadata"],
            swiftSettings: strictSettings
        ),
        .target(
            name: "LightboxMetadata",
            swiftSettings: strictSettings
        ),
        // S3-compatible object storage: requests signed with AWS Signature Version 4 (our own,
        // checked against AWS's published examples), sent by async-http-client. It knows
        // nothing of the library; `Lightbox` keeps originals and derivatives through it.
        .target(
            name: "LightboxS3",
            dependencies: [
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ],
            swiftSettings: strictSettings
        ),
        // The client of the analysis service (analysis/, docs/ANALYSIS.md): its answers read and
        // checked, faces grouped into people through a nearest-face index. It knows Imaging (a
        // face's box is a `NormalizedRect`), not the library; `Lightbox` runs analysis jobs through it.
        .target(
            name: "LightboxAnalysis",
            dependencies: [
                "LightboxImaging",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ],
            swiftSettings: strictSettings
        ),
        // Taking photos: cameras (V4L2) and microphones (ALSA) through FFmpeg's libavdevice,
        // Live Photo movies encoded as frames arrive, stills encoded by libheif or libjpeg-turbo.
        // It knows nothing of the library; `Lightbox` saves what it captures.
        .target(
            name: "LightboxCapture",
            dependencies: ["CCapture", "CVideo", "CHEIF", "CJPEG", "LightboxMetadata"],
            swiftSettings: strictSettings
        ),
        // The catalog and the stored files, below the library: the model's records, the store
        // protocols over them and their two databases (SQLite through GRDB, PostgreSQL through
        // PostgresNIO), originals and renders in a folder or a bucket. `Lightbox` reaches SQL,
        // GRDB and NIO only through its protocols: the compiler keeps them out of the model.
        .target(
            name: "LightboxStore",
            dependencies: [
                "LightboxMetadata",
                "LightboxS3",
                "CDirectIO",
                .product(name: "GRDB", package: "GRDB.swift"),
                // SQLite's C API, from GRDB's own package: fetch results step through row ids raw.
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ],
            swiftSettings: strictSettings
        ),
        .target(
            name: "Lightbox",
            dependencies: [
                "LightboxStore",
                "LightboxImaging",
                "LightboxMetadata",
                "LightboxCapture",
                "LightboxAnalysis",
            ],
            swiftSettings: strictSettings
        ),
        .target(
            name: "LightboxServer",
            dependencies: [
                "Lightbox",
                "LightboxAnalysis",
                "LightboxCapture",
                "LightboxImaging",
                "LightboxMetadata",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                // Channel handlers of its own: the per-address connection limit, a body's pace.
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                // Passwords hashed with scrypt, and secrets with SHA-256.
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "CryptoExtras", package: "swift-crypto"),
            ],
            // The web page's files, compiled into the server: nothing to find at run time.
            resources: [
                "index.html", "signin.html", "style.css", "api.js", "grid.js", "viewer.js", "editor.js", "main.js",
                "signin.js", "shared.html", "shared.js", "icon.svg", "sidebar.js", "select.js", "upload.js",
                "search.js", "camera.js", "changes.js", "account.js", "sharing.js", "toast.js", "trash.js",
                "notfound.html", "theme.js", "users.js", "albums.js", "faces.js", "people.js", "places.js",
                "livetext.js", "things.js",
                // Leaflet and its marker cluster, from Debian's packages (scripts/vendor-leaflet).
                "leaflet.js", "leaflet.css", "markercluster.js", "markercluster.css",
            ].map {
                .embedInCode("Web/" + $0)
            },
            swiftSettings: strictSettings
        ),
        .executableTarget(
            name: "lightbox",
            dependencies: [
                "Lightbox",
                "LightboxAnalysis",
                "LightboxCapture",
                "LightboxImaging",
                "LightboxMetadata",
                "LightboxServer",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "NIOCore", package: "swift-nio"),
            ],
            swiftSettings: strictSettings
        ),
        .executableTarget(
            name: "lightbox-bench",
            dependencies: [
                "Lightbox",
                "LightboxAnalysis",
                "LightboxCapture",
                "LightboxImaging",
                "LightboxMetadata",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                // The ceiling of serving: Hummingbird alone (serve-file).
                .product(name: "Hummingbird", package: "hummingbird"),
            ],
            swiftSettings: strictSettings
        ),
        // External editors run under it: Landlock, a child subreaper counting the memory of all
        // their processes, and nothing left running after them. C, to fork a single-threaded
        // process and set Landlock up before exec, which Foundation's Process cannot.
        .executableTarget(name: "lightbox-confine"),
        // The fuzz targets of every parser of untrusted bytes (scripts/fuzz builds them with
        // libFuzzer); an ordinary build replays inputs through them.
        .executableTarget(
            name: "lightbox-fuzz",
            dependencies: [
                "Lightbox", "LightboxAnalysis", "LightboxImaging", "LightboxMetadata", "LightboxServer", "CJPEG",
                // A request target's query, parsed as the server parses it.
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
            ],
            swiftSettings: strictSettings
        ),
        .target(
            name: "LightboxTestSupport",
            // PostgresNIO: a new database for each library the model's suites make on PostgreSQL.
            dependencies: [
                "Lightbox", "LightboxAnalysis", "LightboxImaging", "LightboxMetadata",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "LightboxMetadataTests",
            dependencies: ["LightboxMetadata", "LightboxTestSupport"],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "LightboxImagingTests",
            // CJPEG and CResample directly: tests compare the 1/8 decoder's coefficients with
            // libjpeg's, and the resampler with a reference on any band count. CVips and
            // LightboxMetadata: the HEIF thumbnail sizes Lightbox reads against libheif's.
            dependencies: [
                "LightboxImaging", "CJPEG", "CResample", "CVips", "CColour", "CHEIF", "CVideo", "LightboxMetadata",
                "LightboxTestSupport",
            ],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "LightboxAnalysisTests",
            dependencies: ["LightboxAnalysis", "LightboxImaging", "LightboxTestSupport"],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "LightboxS3Tests",
            dependencies: ["LightboxS3", "LightboxTestSupport", .product(name: "Crypto", package: "swift-crypto")],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "LightboxCaptureTests",
            dependencies: ["LightboxCapture", "Lightbox", "LightboxMetadata", "LightboxTestSupport"],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "LightboxTests",
            dependencies: [
                "LightboxStore",
                "Lightbox", "LightboxTestSupport", "LightboxS3", "LightboxImaging", "LightboxMetadata", "CDirectIO",
                "LightboxAnalysis",
                .product(name: "GRDB", package: "GRDB.swift"), .product(name: "Crypto", package: "swift-crypto"),
            ],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "LightboxServerTests",
            dependencies: [
                "LightboxStore",
                "LightboxServer",
                "Lightbox",
                "LightboxImaging",
                "LightboxAnalysis",
                "LightboxTestSupport",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            swiftSettings: strictSettings
        ),
    ],
    swiftLanguageModes: [.v6]
)
