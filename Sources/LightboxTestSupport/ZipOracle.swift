import Foundation

/// Python's `zipfile`, an oracle for the archives Lightbox writes: it reads the central
/// directory (ZIP64 records too), then every entry whole, checking each CRC-32.
public enum ZipOracle {
    public struct Entry: Decodable, Equatable, Sendable {
        public var name: String
        public var size: Int
        public var sha256: String
        /// The local time of the entry, `yyyy-MM-dd HH:mm:ss` (two-second steps).
        public var date: String
    }

    static let script = """
        import hashlib, json, sys, zipfile
        with zipfile.ZipFile(sys.argv[1]) as archive:
            bad = archive.testzip()
            if bad is not None:
                sys.exit("bad CRC: " + bad)
            entries = []
            for info in archive.infolist():
                data = archive.read(info)
                entries.append({"name": info.filename, "size": info.file_size,
                                "sha256": hashlib.sha256(data).hexdigest(),
                                "date": "%04d-%02d-%02d %02d:%02d:%02d" % info.date_time})
            print(json.dumps(entries))
        """

    /// The archive's entries as Python reads them; throws when Python refuses it.
    public static func entries(of path: String) throws -> [Entry] {
        let (data, status) = try Tool.run("/usr/bin/python3", ["-c", script, path])
        guard status == 0 else {
            throw NSError(
                domain: "ZipOracle", code: Int(status),
                userInfo: [NSLocalizedDescriptionKey: "python's zipfile refused \(path)"])
        }
        return try JSONDecoder().decode([Entry].self, from: data)
    }
}
