import Foundation
import LightboxMetadata
import LightboxStore

/// How far `migrate` got, for a progress bar.
public struct MigrationProgress: Sendable {
    public enum Stage: String, Sendable {
        /// A member's library (`users/ID`), migrated before the server's own.
        case member
        /// Originals uploaded to the bucket (`done` of `total` files).
        case originals
        /// Rendered images and movie copies uploaded (`done` of `total` assets).
        case derivatives
        /// Catalog rows copied (`detail` names the table, `done` its rows).
        case catalog
    }

    public var stage: Stage
    public var done: Int
    public var total: Int
    public var detail: String
}

/// What `migrate` did.
public struct MigrationSummary: Sendable {
    public var originals = 0
    public var derivatives = 0
    public var rows = 0
    public var members = 0
    /// Whether an earlier run had copied a catalog (this library's or a member's), which this one
    /// finished.
    public var resumed = false
}

extension PhotoLibrary {
    /// Moves a library whose catalog is its SQLite file to PostgreSQL (`database`), and with
    /// `objectStorage` its originals, renders and movie copies to a bucket: what `lightbox
    /// migrate` does. Its members' libraries (`users/ID`) move first, each to a schema of the
    /// same database and a prefix of the same bucket.
    ///
    /// Nothing is lost at any instant: files are uploaded (each checked against its SHA-256)
    /// before the catalog is copied; the catalog and the accounts are copied in one PostgreSQL
    /// transaction while SQLite's writer is held; only then does the folder name the new
    /// places (`storage.json`) and its old files are set aside (`library.sqlite.migrated`,
    /// `originals.migrated`...), to be removed by hand once the new library is checked. Run
    /// again after a crash, it goes on from where it stopped: uploads already made are reused,
    /// a finished copy is recognised by the marker it left. Refuses while another process has
    /// the library open: what it committed after the copy would be lost.
    public func migrate(
        to database: String, originals objectStorage: ObjectStorageSettings?,
        environment: [String: String] = ProcessInfo.processInfo.environment,
        progress: (MigrationProgress) -> Void = { _ in }
    ) throws -> MigrationSummary {
        guard store.sharedAddress == nil else {
            throw LibraryError(.invalidRequest, "this library's catalog is on PostgreSQL already", path: url.path)
        }
        try refuseOtherProcesses()
        let address = try PostgresAddress(database)
        var summary = MigrationSummary()
        // Members first: a crash after the server's own library switched would leave them behind.
        let accounts =
            FileIO.fileExists(url.path + "/" + SQLiteAccountStore.filename)
            ? try SQLiteAccountStore(libraryURL: url) : nil
        let memberFolders = try accounts?.memberLibraryFolders() ?? []
        for folder in memberFolders.sorted() {
            // Inside this library's folder only, whatever the accounts say.
            let memberURL = try UserAccount.libraryURL(folder: folder, inside: url)
            guard PhotoLibrary.isLibrary(memberURL.path) else { continue }
            let member = try PhotoLibrary(url: memberURL)
            guard member.store.sharedAddress == nil else { continue }
            progress(
                MigrationProgress(stage: .member, done: summary.members, total: memberFolders.count, detail: folder))
            var memberOriginals = objectStorage
            memberOriginals?.url += "/" + folder
            let moved = try member.migrate(
                to: address.schema(Self.memberSchema(folder: folder)).description, originals: memberOriginals,
                environment: environment, progress: progress)
            summary.members += 1
            summary.resumed = summary.resumed || moved.resumed
        }
        let origin = url.path
        if let copied = try CatalogMigration.finishedCopy(into: address, environment: environment) {
            guard copied == origin else {
                throw LibraryError(
                    .storageFailed, "the catalog at \(address) holds the library migrated from \(copied)",
                    path: url.path)
            }
            summary.resumed = true
        } else {
            if let objectStorage {
                try upload(to: objectStorage, environment: environment, summary: &summary, progress: progress)
            }
            try CatalogMigration.copy(
                store, accounts: accounts, into: address, environment: environment, originals: objectStorage,
                origin: origin
            ) { table, rows in
                summary.rows += rows
                progress(MigrationProgress(stage: .catalog, done: rows, total: rows, detail: table))
            }
        }
        FaultInjection.pause(at: .migrateCopied)
        try switchFolder(database: address.description, originals: objectStorage)
        return summary
    }

    /// The schema of a member's library beside a PostgreSQL catalog: `m_` and the letters and
    /// digits of the folder's last part (a user's UUID: 34 characters).
    static func memberSchema(folder: String) -> String {
        let name = PathString.lastComponent(folder).lowercased().unicodeScalars.filter {
            ("a"..."z").contains($0) || ("0"..."9").contains($0)
        }
        return "m_" + String(String.UnicodeScalarView(name).prefix(38))
    }

    /// Throws when another process has the library open (its lock in `originals/.incoming/`).
    private func refuseOtherProcesses() throws {
        let incoming = url.path + "/originals/.incoming"
        let own = PathString.lastComponent(originals.temporaryFolder)
        let names = (try? FileManager.default.contentsOfDirectory(atPath: incoming)) ?? []
        let others = names.filter { $0.hasSuffix(".lock") }.map { String($0.dropLast(5)) }.filter {
            $0 != own && ProcessFolder.isHeld($0, in: incoming)
        }
        guard others.isEmpty else {
            throw LibraryError(
                .invalidRequest,
                "\(others.count) other process\(others.count == 1 ? " has" : "es have") the library open (a server, an import): stop them first, or what they commit after the copy is lost",
                path: url.path)
        }
    }

    /// Uploads every original (reusing those a run before uploaded) and every rendered image and
    /// movie copy to the bucket.
    private func upload(
        to settings: ObjectStorageSettings, environment: [String: String], summary: inout MigrationSummary,
        progress: (MigrationProgress) -> Void
    ) throws {
        let (objects, renders) = try settings.storages(libraryFolder: url.path, environment: environment)
        try objects.checkReachable(libraryFolder: url.path)
        var seen = Set<String>()
        let stored = try store.read { try $0.storedResources() }.filter { seen.insert($0.storedPath).inserted }
        for (index, resource) in stored.enumerated() {
            let key = try objects.store(
                copying: try originals.localPath(of: resource.storedPath), sha256: resource.sha256,
                filenameExtension: PathString.pathExtension(resource.storedPath))
            guard key == resource.storedPath else {
                throw LibraryError(
                    .storageFailed, "the bucket stored \(resource.storedPath) as \(key)", path: resource.storedPath)
            }
            summary.originals += 1
            progress(MigrationProgress(stage: .originals, done: index + 1, total: stored.count, detail: key))
        }
        let rendered = derivatives.storedAssets()
        for (index, (identifier, location)) in rendered.enumerated() {
            let folder = url.path + "/" + location
            for name in ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).sorted()
            where !name.hasPrefix(".") {
                let file = folder + "/" + name
                // A cache: a render that cannot be read is made again when asked for.
                let small: [UInt8]?
                do {
                    small = try FileIO.contents(ofFileAt: file, limit: Self.largestReadRender)
                } catch {
                    continue
                }
                if let bytes = small {
                    try renders.store(bytes, localIdentifier: identifier, key: name)
                } else {
                    // A movie's copy, streamed; it moves into this machine's cache of the bucket,
                    // where it would be kept anyway.
                    try renders.storeFile(at: file, localIdentifier: identifier, key: name)
                }
            }
            summary.derivatives += 1
            progress(MigrationProgress(stage: .derivatives, done: index + 1, total: rendered.count, detail: identifier))
        }
    }

    /// The largest render `migrate` reads into memory (thumbnails and previews); a larger file,
    /// a movie's copy, is streamed.
    static let largestReadRender = 16 << 20

    /// Makes the folder name its new places and sets its old files aside.
    private func switchFolder(database: String, originals objectStorage: ObjectStorageSettings?) throws {
        let path = url.path
        try LibraryPlacement(originals: objectStorage, database: database).write(libraryFolder: path)
        var aside = [Self.databaseFilename, SQLiteAccountStore.filename].flatMap { [$0, $0 + "-wal", $0 + "-shm"] }
        if objectStorage != nil { aside += ["originals", "derivatives"] }
        for name in aside where FileManager.default.fileExists(atPath: path + "/" + name) {
            // Set aside by an earlier run that stopped here: this one's copy is a leftover.
            if FileManager.default.fileExists(atPath: path + "/" + name + ".migrated") { continue }
            try FileManager.default.moveItem(atPath: path + "/" + name, toPath: path + "/" + name + ".migrated")
        }
    }
}
