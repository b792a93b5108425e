import Foundation

/// Applies the operations of one change block inside the write transaction: checks each
/// request against the catalog, writes it, keeps albums' and folders' orders, lists the
/// originals let go, and records the transaction in the history.
struct ChangeApplier {
    /// A child of a folder: an album or a folder, by row id.
    enum Child: Hashable {
        case collection(Int64)
        case list(Int64)
    }

    /// A folder's children, in order, as the block leaves them.
    private struct ListState {
        var rowID: Int64
        var members: OrderedMembers<Child>
        var dirty = false
        var children: [Child] { members.elements }
    }

    /// An album's assets, in order, as the block leaves them.
    private struct AlbumState {
        var rowID: Int64
        var members: OrderedMembers<Int64>
        var dirty = false
        var assets: [Int64] { members.elements }
    }

    let db: any SQLDatabase
    /// How much history the store keeps.
    let retention: HistoryRetention
    let prepared: PreparedChanges
    /// Stored paths resources stopped referring to in this block.
    private var releasedPaths: Set<String> = []
    private var albums: [String: AlbumState] = [:]
    private var deletedAlbums: Set<String> = []
    private var lists: [String: ListState] = [:]
    private var deletedLists: Set<String> = []
    /// The albums and folders in no folder, in order, once the block reorders them.
    private var topLevel: OrderedMembers<Child>?
    private var log: [ObjectKey: ObjectChangeRecord.Kind] = [:]
    private var logOrder: [ObjectKey] = []
    private var result = AppliedChanges()
    /// The people whose faces the block changed, by row id: their key faces are chosen again,
    /// and those left with no face and no name go.
    var touchedPeople: Set<Int64> = []
    private let now = Date()

    private struct ObjectKey: Hashable {
        var type: ObjectChangeRecord.ObjectType
        var localIdentifier: String
    }

    init(db: any SQLDatabase, retention: HistoryRetention, prepared: PreparedChanges = PreparedChanges()) {
        self.db = db
        self.retention = retention
        self.prepared = prepared
    }

    mutating func apply(_ operations: [ChangeOperation]) throws -> AppliedChanges {
        for operation in operations {
            switch operation {
            case .createAsset(let id):
                guard let asset = prepared.assets[id] else { throw invalid("the new asset \(id) was not prepared") }
                do {
                    try asset.insert(db, localIdentifier: id)
                } catch  where SQLErrors.isUniqueViolation(error) {
                    throw invalid("the library already holds the bytes of the new asset \(id)")
                }
                record(.asset, id, .inserted)
            case .editAsset(let id, let edit):
                try editAsset(id, edit)
            case .deleteAssets(let ids):
                for id in ids { try trashAsset(id) }
            case .restoreAssets(let ids):
                for id in ids { try restoreAsset(id) }
            case .purgeAssets(let ids):
                for id in ids { releasedPaths.formUnion(try purgeAsset(id)) }
            case .createCollection(let id, let title):
                try checkTitleFree(title, of: .album, except: nil)
                let rowID = try insertContainer(
                    into: "assetCollection", id, type: AssetCollectionType.album.rawValue,
                    subtype: AssetCollectionSubtype.albumRegular.rawValue, title: title)
                albums[id] = AlbumState(rowID: rowID, members: OrderedMembers(elements: [], owner: "album \(id)"))
                record(.assetCollection, id, .inserted)
            case .renameCollection(let id, let title):
                let album = try albumState(id)
                try checkTitleFree(title, of: .album, except: album.rowID)
                try db.execute("UPDATE assetCollection SET title = ? WHERE id = ?", [title, album.rowID])
                record(.assetCollection, id, .updated)
            case .addAssets(let id, let assets):
                var album = try albumState(id)
                album.members.add(try assets.map(liveAssetRowID))
                store(album, id)
            case .insertAssets(let id, let assets, let indexes):
                var album = try albumState(id)
                try album.members.insert(try assets.map(liveAssetRowID), at: indexes)
                store(album, id)
            case .removeAssets(let id, let assets):
                var album = try albumState(id)
                album.members.remove(Set(try assets.map(liveAssetRowID)))
                store(album, id)
            case .removeAssetsAt(let id, let indexes):
                var album = try albumState(id)
                try album.members.remove(at: indexes)
                store(album, id)
            case .replaceAssets(let id, let indexes, let assets):
                var album = try albumState(id)
                try album.members.replace(at: indexes, with: try assets.map(liveAssetRowID))
                store(album, id)
            case .moveAssets(let id, let indexes, let destination):
                var album = try albumState(id)
                try album.members.move(at: indexes, to: destination)
                store(album, id)
            case .createList(let id, let title):
                try checkTitleFree(title, of: .folder, except: nil)
                let rowID = try insertContainer(
                    into: "collectionList", id, type: CollectionListType.folder.rawValue,
                    subtype: CollectionListSubtype.regularFolder.rawValue, title: title)
                lists[id] = ListState(rowID: rowID, members: OrderedMembers(elements: [], owner: "folder \(id)"))
                record(.collectionList, id, .inserted)
            case .renameList(let id, let title):
                let list = try listState(id)
                try checkTitleFree(title, of: .folder, except: list.rowID)
                try db.execute("UPDATE collectionList SET title = ? WHERE id = ?", [title, list.rowID])
                record(.collectionList, id, .updated)
            case .addChildren(let id, let children):
                var list = try listState(id)
                let refs = try childRefs(children)
                for child in refs { try checkCanHold(list, id, child) }
                list.members.add(refs)
                store(list, id)
            case .insertChildren(let id, let children, let indexes):
                var list = try listState(id)
                let refs = try childRefs(children)
                for child in refs { try checkCanHold(list, id, child) }
                try list.members.insert(refs, at: indexes)
                store(list, id)
            case .removeChildren(let id, let children):
                var list = try listState(id)
                list.members.remove(Set(try childRefs(children)))
                store(list, id)
            case .replaceChildren(let id, let indexes, let children):
                var list = try listState(id)
                let refs = try childRefs(children)
                for child in refs where !list.children.contains(child) { try checkCanHold(list, id, child) }
                try list.members.replace(at: indexes, with: refs)
                store(list, id)
            case .moveChildren(let id, let indexes, let destination):
                var list = try listState(id)
                try list.members.move(at: indexes, to: destination)
                store(list, id)
            case .moveTopLevel(let indexes, let destination):
                var members = try topLevelState()
                let before = members.elements
                try members.move(at: indexes, to: destination)
                for index in Set(indexes).sorted() { try recordUpdated(before[index]) }
                topLevel = members
            case .deleteLists(let ids):
                for id in ids {
                    let list = try listState(id)
                    topLevel?.remove([.list(list.rowID)])
                    try db.execute("DELETE FROM collectionList WHERE id = ?", [list.rowID])
                    lists[id] = nil
                    deletedLists.insert(id)
                    for key in lists.keys where lists[key]!.children.contains(.list(list.rowID)) {
                        lists[key]!.members.remove([.list(list.rowID)])
                        lists[key]!.dirty = true
                    }
                    record(.collectionList, id, .deleted)
                }
            case .createPerson, .renamePerson, .hidePerson, .mergePeople, .assignFaces, .setKeyFace, .rejectFaces:
                try applyPeople(operation)
            case .deleteCollections(let ids):
                for id in ids {
                    let album = try albumState(id)
                    topLevel?.remove([.collection(album.rowID)])
                    for key in lists.keys where lists[key]!.children.contains(.collection(album.rowID)) {
                        lists[key]!.members.remove([.collection(album.rowID)])
                        lists[key]!.dirty = true
                    }
                    try db.execute("DELETE FROM assetCollection WHERE id = ?", [album.rowID])
                    albums[id] = nil
                    deletedAlbums.insert(id)
                    record(.assetCollection, id, .deleted)
                }
            }
        }
        for album in albums.values where album.dirty {
            try db.execute("DELETE FROM collectionAsset WHERE collectionId = ?", [album.rowID])
            try insertRows(
                "INSERT INTO collectionAsset (collectionId, assetId, position) VALUES", columns: 3,
                album.assets.enumerated().map { [album.rowID, $0.element, $0.offset] })
        }
        for list in lists.values where list.dirty {
            try db.execute("DELETE FROM collectionListChild WHERE listId = ?", [list.rowID])
        }
        for list in lists.values where list.dirty {
            try insertRows(
                "INSERT INTO collectionListChild (listId, collectionId, childListId, position) VALUES", columns: 4,
                list.children.enumerated().map { position, child -> [any SQLBindable] in
                    switch child {
                    case .collection(let row): [list.rowID, row, SQLValue.null, position]
                    case .list(let row): [list.rowID, SQLValue.null, row, position]
                    }
                })
        }
        if let topLevel {
            try db.execute("DELETE FROM topLevelPosition")
            try insertRows(
                "INSERT INTO topLevelPosition (collectionId, childListId, position) VALUES", columns: 3,
                topLevel.elements.enumerated().map { position, child -> [any SQLBindable] in
                    switch child {
                    case .collection(let row): [row, SQLValue.null, position]
                    case .list(let row): [SQLValue.null, row, position]
                    }
                })
        }
        if topLevel != nil || lists.values.contains(where: \.dirty) {
            // What went into a folder leaves its place at the top level: back there, it comes last.
            try db.execute(
                """
                DELETE FROM topLevelPosition
                WHERE collectionId IN (SELECT collectionId FROM collectionListChild WHERE collectionId IS NOT NULL)
                OR childListId IN (SELECT childListId FROM collectionListChild WHERE childListId IS NOT NULL)
                """)
        }
        try finishPeople()
        for path in releasedPaths.sorted() {
            guard try db.resourceCount(storedPath: path) == 0 else { continue }
            result.unreferencedOriginals.append(path)
            // Listed in this transaction, removed after it: see PhotoLibrary.removePendingOriginals.
            try db.execute("INSERT INTO pendingRemoval (storedPath) VALUES (?) ON CONFLICT DO NOTHING", [path])
        }
        let changes = logOrder.compactMap { key in
            log[key].map { ObjectChangeRecord(key.type, key.localIdentifier, $0) }
        }
        if !changes.isEmpty {
            result.changeToken = try db.recordChangeTransaction(
                author: "performChanges", changes: changes, retention: retention)
        }
        return result
    }

    /// Inserts rows of `columns` values each, a hundred rows per statement: an album of
    /// thousands is written in tens of statements, not thousands.
    private func insertRows(_ insert: String, columns: Int, _ rows: [[any SQLBindable]]) throws {
        let placeholders = "(" + Array(repeating: "?", count: columns).joined(separator: ", ") + ")"
        for start in stride(from: 0, to: rows.count, by: 100) {
            let run = rows[start..<min(rows.count, start + 100)]
            try db.execute(
                insert + " " + Array(repeating: placeholders, count: run.count).joined(separator: ", "),
                run.flatMap { $0 })
        }
    }

    /// The containers whose titles are kept apart.
    private enum TitledKind {
        case album, folder
    }

    /// Refuses a title another album (folder) of the library has, case aside: two of one title
    /// cannot be told apart in a sidebar, a menu or a command that names one by its title. The
    /// rows this block deleted or renamed are read as the block leaves them (its statements
    /// run as it goes).
    private func checkTitleFree(_ title: String, of kind: TitledKind, except rowID: Int64?) throws {
        let (table, type, noun) =
            switch kind {
            case .album: ("assetCollection", AssetCollectionType.album.rawValue, "an album")
            case .folder: ("collectionList", CollectionListType.folder.rawValue, "a folder")
            }
        let rows = try db.rows("SELECT id, title FROM \(table) WHERE type = ? AND title IS NOT NULL", [type])
        for row in rows {
            guard try row.integer("id") != rowID, let other = row["title"].text,
                other.caseInsensitiveCompare(title) == .orderedSame
            else { continue }
            throw LibraryError(
                .invalidRequest,
                "\(noun) titled \"\(other)\" exists already; give \(rowID == nil ? "the new one" : "it") another title")
        }
    }

    /// Inserts a new album or folder row (`table` is Lightbox's own, never user text) and
    /// returns its row id.
    private func insertContainer(into table: String, _ id: String, type: Int, subtype: Int, title: String) throws
        -> Int64
    {
        guard
            let rowID = try db.integer(
                "INSERT INTO \(table) (localIdentifier, type, subtype, title, creationDate) VALUES (?, ?, ?, ?, ?) RETURNING id",
                [id, type, subtype, title, now])
        else { throw invalid("the new \(table) \(id) got no row") }
        return rowID
    }

    // MARK: Assets

    /// The row of an asset, deleted or not, and whether it is in Recently Deleted.
    private func assetRow(_ localIdentifier: String) throws -> (id: Int64, isTrashed: Bool) {
        guard
            let row = try db.rows(
                "SELECT id, CASE WHEN trashedDate IS NULL THEN 0 ELSE 1 END AS isTrashed FROM asset WHERE localIdentifier = ?",
                [localIdentifier]
            ).first
        else {
            throw LibraryError(.assetNotFound, "no asset has the identifier \(localIdentifier); nothing was changed")
        }
        return (try row.integer("id"), try row.integer("isTrashed") != 0)
    }

    /// The row of an asset in the library: one in Recently Deleted is refused, as PhotoKit
    /// refuses changes to a deleted asset.
    private func liveAssetRowID(_ localIdentifier: String) throws -> Int64 {
        let row = try assetRow(localIdentifier)
        guard !row.isTrashed else {
            throw invalid("asset \(localIdentifier) is in Recently Deleted: restore it before changing it")
        }
        return row.id
    }

    private mutating func editAsset(_ id: String, _ edit: AssetChange) throws {
        let row = try liveAssetRowID(id)
        switch edit {
        case .content:
            // These set the modification date and record the change themselves.
            guard let prepared = prepared.edits[id] else { throw invalid("the edit of asset \(id) was not prepared") }
            return try applyContentEdit(id, row, prepared)
        case .revert:
            guard let size = prepared.reverts[id] else { return }  // not edited: nothing to revert
            return try revert(id, row, size)
        case .favorite(let value):
            try db.execute("UPDATE asset SET isFavorite = ? WHERE id = ?", [value, row])
        case .hidden(let value):
            try db.execute("UPDATE asset SET isHidden = ? WHERE id = ?", [value, row])
        case .rating(let value):
            guard value.map({ (-1...5).contains($0) }) ?? true else {
                throw invalid("rating \(value ?? 0) of asset \(id) is not 1 to 5 stars, -1 (rejected) or 0 (unrated)")
            }
            try db.execute("UPDATE asset SET rating = ? WHERE id = ?", [value == 0 ? nil : value, row])
        case .burstSelection(let types):
            return try selectInBurst(id, row, types)
        case .creationDate(let date):
            guard let date else { throw invalid("asset \(id) cannot have its creation date removed") }
            try db.execute("UPDATE asset SET creationDate = ? WHERE id = ?", [date, row])
        case .location(let location):
            if let location {
                guard (-90...90).contains(location.latitude), (-180...180).contains(location.longitude) else {
                    throw invalid(
                        "location \(location.latitude), \(location.longitude) of asset \(id) is off the globe")
                }
            }
            try db.execute(
                "UPDATE asset SET latitude = ?, longitude = ?, altitude = ?, locationTimestamp = ? WHERE id = ?",
                [location?.latitude, location?.longitude, location?.altitude, location?.timestamp, row])
            // The place it had is another location's: gone at once, and the new one named by the
            // places job.
            try db.execute("DELETE FROM assetPlace WHERE assetId = ?", [row])
            if location != nil, try db.placesEnabled() { try db.enqueueJobAgain(.places, subject: "") }
        }
        try db.execute("UPDATE asset SET modificationDate = ? WHERE id = ?", [now, row])
        record(.asset, id, .updated)
    }

    /// Sets a burst photo's selection; a pick leaves the burst's other photos, and the burst's
    /// representative is elected again. Every photo of the burst is recorded as changed: which
    /// one fetches show may have changed.
    private mutating func selectInBurst(_ id: String, _ row: Int64, _ types: AssetBurstSelectionType) throws {
        guard
            let burst = try db.text("SELECT burstIdentifier FROM asset WHERE id = ?", [row])
        else { throw invalid("asset \(id) is in no burst: it has no burst selection to set") }
        let known = types.intersection([.autoPick, .userPick])
        if !known.isEmpty {
            try db.execute(
                "UPDATE asset SET burstSelectionTypes = burstSelectionTypes & ~? WHERE burstIdentifier = ? AND id != ?",
                [known.rawValue, burst, row])
        }
        try db.execute(
            "UPDATE asset SET burstSelectionTypes = ?, modificationDate = ? WHERE id = ?", [known.rawValue, now, row])
        try db.electRepresentative(ofBurst: burst)
        let members = try db.texts("SELECT localIdentifier FROM asset WHERE burstIdentifier = ? ORDER BY id", [burst])
        for member in members { record(.asset, member, .updated) }
    }

    // MARK: Edits

    /// The asset's resource of one type: its stored path and hash.
    private func resource(_ row: Int64, _ type: AssetResourceType) throws -> (storedPath: String, sha256: String)? {
        try db.rows("SELECT storedPath, sha256 FROM resource WHERE assetId = ? AND type = ?", [row, type.rawValue])
            .first.map { (try $0.text("storedPath"), try $0.text("sha256")) }
    }

    /// Removes the asset's resources of these types; their files go if nothing else uses them.
    private mutating func removeResources(_ row: Int64, _ types: [AssetResourceType]) throws {
        for type in types {
            if let stored = try resource(row, type) { releasedPaths.insert(stored.storedPath) }
            try db.execute("DELETE FROM resource WHERE assetId = ? AND type = ?", [row, type.rawValue])
        }
    }

    /// Clears the way for a new render of one kind (the still, or a Live Photo's movie) as the
    /// edit's base says. Made on the render, the render becomes the adjustment base: the edit
    /// chains on it. Made on the adjustment base, only the render goes; on the original, both.
    private mutating func makeRoom(
        _ row: Int64, for base: EditBase, render: AssetResourceType, adjustmentBase: AssetResourceType
    ) throws {
        switch base {
        case .render:
            guard try resource(row, render) != nil else { return }
            try removeResources(row, [adjustmentBase])
            try retype(row, render, to: adjustmentBase)
        case .adjustmentBase:
            try removeResources(row, [render])
        case .original:
            try removeResources(row, [render, adjustmentBase])
        }
    }

    private mutating func applyContentEdit(_ id: String, _ row: Int64, _ edit: PreparedEdit) throws {
        // A movie's render is its edited movie; a photo's, its still.
        let (renderType, baseType): (AssetResourceType, AssetResourceType) =
            edit.movieDuration != nil ? (.fullSizeVideo, .adjustmentBaseVideo) : (.fullSizePhoto, .adjustmentBasePhoto)
        let current = try resource(row, renderType)
        guard current?.sha256 == edit.expectedRenderSHA256 else {
            throw invalid(
                "asset \(id) was edited or reverted after its editing input was made; edit it again from a new input")
        }
        try removeResources(row, [.adjustmentData])
        try makeRoom(row, for: edit.base, render: renderType, adjustmentBase: baseType)
        if let current { result.replacedRenders[id] = current.sha256 }
        // A Live Photo's movie follows its still; an edit without a movie leaves it as it is.
        if edit.movie != nil {
            try makeRoom(row, for: edit.base, render: .fullSizePairedVideo, adjustmentBase: .adjustmentBasePairedVideo)
        }
        var files = [(renderType, edit.render), (.adjustmentData, edit.adjustment)]
        if let movie = edit.movie { files.append((.fullSizePairedVideo, movie)) }
        for (type, file) in files {
            try db.execute(
                """
                INSERT INTO resource (assetId, type, originalFilename, uniformTypeIdentifier, fileSize, pixelWidth,
                    pixelHeight, sha256, storedPath)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
                """,
                [
                    row, type.rawValue, file.originalFilename, file.uniformTypeIdentifier, file.size, file.pixelWidth,
                    file.pixelHeight, file.sha256, file.storedPath,
                ])
            releasedPaths.remove(file.storedPath)
        }
        try db.execute(
            """
            UPDATE asset SET hasAdjustments = 1, adjustmentFormatIdentifier = ?, pixelWidth = ?, pixelHeight = ?,
            duration = COALESCE(?, duration), modificationDate = ? WHERE id = ?
            """,
            [
                edit.formatIdentifier, edit.render.pixelWidth, edit.render.pixelHeight, edit.movieDuration, now, row,
            ])
        // A photo shown otherwise: what was found lay where the old image had it.
        if edit.movieDuration == nil { try db.analyseAgain(assetID: row) }
        record(.asset, id, .updated)
    }

    /// An asset's resource of one type becomes another (a render becomes an adjustment base).
    private func retype(_ row: Int64, _ type: AssetResourceType, to newType: AssetResourceType) throws {
        try db.execute(
            "UPDATE resource SET type = ? WHERE assetId = ? AND type = ?", [newType.rawValue, row, type.rawValue])
    }

    private mutating func revert(_ id: String, _ row: Int64, _ size: PreparedRevert) throws {
        if let current = try resource(row, .fullSizePhoto) ?? resource(row, .fullSizeVideo) {
            result.replacedRenders[id] = current.sha256
        }
        try removeResources(
            row,
            [
                .fullSizePhoto, .adjustmentData, .adjustmentBasePhoto, .fullSizePairedVideo, .adjustmentBasePairedVideo,
                .fullSizeVideo, .adjustmentBaseVideo,
            ])
        try db.execute(
            """
            UPDATE asset SET hasAdjustments = 0, adjustmentFormatIdentifier = NULL, pixelWidth = ?, pixelHeight = ?,
            duration = COALESCE(?, duration), modificationDate = ? WHERE id = ?
            """, [size.pixelWidth, size.pixelHeight, size.duration, now, row])
        if size.duration == nil { try db.analyseAgain(assetID: row) }
        record(.asset, id, .updated)
    }

    /// The identifiers of the albums that held the asset before this block.
    private func albumsContaining(_ row: Int64) throws -> [String] {
        try db.texts(
            """
            SELECT assetCollection.localIdentifier FROM collectionAsset
            JOIN assetCollection ON assetCollection.id = collectionAsset.collectionId WHERE collectionAsset.assetId = ?
            """, [row])
    }

    /// Moves an asset to Recently Deleted: out of its albums, whose places it keeps for a
    /// restore, and out of every fetch; its row, files and edits stay.
    private mutating func trashAsset(_ id: String) throws {
        let (row, isTrashed) = try assetRow(id)
        guard !isTrashed else {
            throw invalid("asset \(id) is in Recently Deleted already; purge it to delete it for good")
        }
        for album in try albumsContaining(row) { _ = try albumState(album) }
        for key in albums.keys.sorted() {
            guard let position = albums[key]!.assets.firstIndex(of: row) else { continue }
            albums[key]!.members.remove([row])
            albums[key]!.dirty = true
            record(.assetCollection, key, .updated)
            try db.execute(
                "INSERT INTO trashedMembership (collectionId, assetId, position) VALUES (?, ?, ?)",
                [albums[key]!.rowID, row, position])
        }
        try db.execute("UPDATE asset SET trashedDate = ? WHERE id = ?", [now, row])
        record(.asset, id, .trashed)
    }

    /// Brings an asset back from Recently Deleted, into the albums it was in: at its place, or
    /// at the end of an album now shorter.
    private mutating func restoreAsset(_ id: String) throws {
        let row = try assetRow(id)
        guard row.isTrashed else { throw invalid("asset \(id) is not in Recently Deleted") }
        let memberships = try db.rows(
            """
            SELECT assetCollection.localIdentifier, trashedMembership.position FROM trashedMembership
            JOIN assetCollection ON assetCollection.id = trashedMembership.collectionId
            WHERE trashedMembership.assetId = ? ORDER BY trashedMembership.position
            """, [row.id])
        for membership in memberships {
            let albumID = try membership.text("localIdentifier")
            guard !deletedAlbums.contains(albumID) else { continue }
            var album = try albumState(albumID)
            guard !album.assets.contains(row.id) else { continue }
            try album.members.insert([row.id], at: [min(Int(try membership.integer("position")), album.assets.count)])
            store(album, albumID)
        }
        try db.execute("DELETE FROM trashedMembership WHERE assetId = ?", [row.id])
        try db.execute("UPDATE asset SET trashedDate = NULL WHERE id = ?", [row.id])
        record(.asset, id, .restored)
    }

    /// Deletes one asset for good, in Recently Deleted or not; returns the stored paths its
    /// resources used.
    private mutating func purgeAsset(_ id: String) throws -> [String] {
        let row = try assetRow(id).id
        let paths = try db.texts("SELECT storedPath FROM resource WHERE assetId = ?", [row])
        for album in try albumsContaining(row) { record(.assetCollection, album, .updated) }
        for key in albums.keys {
            if albums[key]!.assets.contains(row) {
                albums[key]!.members.remove([row])
                albums[key]!.dirty = true
                record(.assetCollection, key, .updated)
            }
        }
        try db.execute("DELETE FROM asset WHERE id = ?", [row])
        record(.asset, id, .deleted)
        result.deletedAssets.append(id)
        return paths
    }

    // MARK: Albums

    /// The row of an album or folder a user may change: it exists, was not deleted in this
    /// block, and is of the user's type (not kept by the library).
    private func editableRowID(table: String, _ id: String, userType: Int, noun: String, deleted: Set<String>) throws
        -> Int64
    {
        guard !deleted.contains(id),
            let row = try db.rows("SELECT id, type FROM \(table) WHERE localIdentifier = ?", [id]).first
        else {
            throw LibraryError(.collectionNotFound, "no \(noun) has the identifier \(id); nothing was changed")
        }
        guard try row.integer("type") == Int64(userType) else {
            throw invalid("\(id) is kept by the library, not \(noun == "album" ? "an" : "a") \(noun) a user can change")
        }
        return try row.integer("id")
    }

    private mutating func albumState(_ id: String) throws -> AlbumState {
        if let album = albums[id] { return album }
        let rowID = try editableRowID(
            table: "assetCollection", id, userType: AssetCollectionType.album.rawValue, noun: "album",
            deleted: deletedAlbums)
        let assets = try db.integers(
            "SELECT assetId FROM collectionAsset WHERE collectionId = ? ORDER BY position", [rowID])
        let album = AlbumState(rowID: rowID, members: OrderedMembers(elements: assets, owner: "album \(id)"))
        albums[id] = album
        return album
    }

    // MARK: Folders

    private mutating func listState(_ id: String) throws -> ListState {
        if let list = lists[id] { return list }
        let rowID = try editableRowID(
            table: "collectionList", id, userType: CollectionListType.folder.rawValue, noun: "folder",
            deleted: deletedLists)
        let children = try db.rows(
            "SELECT collectionId, childListId FROM collectionListChild WHERE listId = ? ORDER BY position", [rowID]
        ).map { row -> Child in
            if let collection = row["collectionId"].integer { return .collection(collection) }
            return .list(try row.integer("childListId"))
        }
        let list = ListState(rowID: rowID, members: OrderedMembers(elements: children, owner: "folder \(id)"))
        lists[id] = list
        return list
    }

    private mutating func store(_ list: ListState, _ id: String) {
        var list = list
        list.dirty = true
        lists[id] = list
        record(.collectionList, id, .updated)
    }

    /// The albums and folders in no folder as the block leaves them, in the top level's order.
    private mutating func topLevelState() throws -> OrderedMembers<Child> {
        if let topLevel { return topLevel }
        let rows = try db.integers(
            """
            SELECT rid FROM (
                SELECT id AS rid, creationDate FROM assetCollection WHERE type = \(AssetCollectionType.album.rawValue)
                UNION ALL
                SELECT -id, creationDate FROM collectionList WHERE type = \(CollectionListType.folder.rawValue)
            ) AS collection ORDER BY \(CatalogCollections.topLevelOrder), collection.rid ASC
            """)
        var children: [Child] = []
        for row in rows {
            let child: Child = row > 0 ? .collection(row) : .list(-row)
            if try parent(of: child) == nil { children.append(child) }
        }
        let members = OrderedMembers(elements: children, owner: "the top level")
        topLevel = members
        return members
    }

    /// Records an album or folder as updated.
    private mutating func recordUpdated(_ child: Child) throws {
        let (type, table, row): (ObjectChangeRecord.ObjectType, String, Int64) =
            switch child {
            case .collection(let row): (.assetCollection, "assetCollection", row)
            case .list(let row): (.collectionList, "collectionList", row)
            }
        guard
            let id = try db.text("SELECT localIdentifier FROM \(table) WHERE id = ?", [row])
        else { return }
        record(type, id, .updated)
    }

    /// An album or folder a folder may hold: user albums and folders only.
    private mutating func childRef(_ id: String) throws -> Child {
        if let album = albums[id] { return .collection(album.rowID) }
        if let list = lists[id] { return .list(list.rowID) }
        if !deletedAlbums.contains(id),
            let row = try db.rows("SELECT id, type FROM assetCollection WHERE localIdentifier = ?", [id]).first
        {
            guard try row.integer("type") == Int64(AssetCollectionType.album.rawValue) else {
                throw invalid("\(id) is kept by the library; folders hold user albums and folders")
            }
            return .collection(try row.integer("id"))
        }
        if !deletedLists.contains(id) {
            _ = try listState(id)
            if let list = lists[id] { return .list(list.rowID) }
        }
        throw LibraryError(.collectionNotFound, "no album or folder has the identifier \(id); nothing was changed")
    }

    private mutating func childRefs(_ identifiers: [String]) throws -> [Child] {
        var refs: [Child] = []
        for identifier in identifiers { refs.append(try childRef(identifier)) }
        return refs
    }

    /// The folder holding `child` as the block leaves things: a loaded folder's children
    /// win over the database, which only knows how things were before the block.
    private func parent(of child: Child) throws -> Int64? {
        for list in lists.values where list.children.contains(child) { return list.rowID }
        let stored: Int64?
        switch child {
        case .collection(let row):
            stored = try db.integer("SELECT listId FROM collectionListChild WHERE collectionId = ?", [row])
        case .list(let row):
            stored = try db.integer("SELECT listId FROM collectionListChild WHERE childListId = ?", [row])
        }
        guard let stored else { return nil }
        // A folder loaded in this block no longer holding the child has let it go.
        return lists.values.contains { $0.rowID == stored } ? nil : stored
    }

    /// Refuses a second parent, and a folder inside itself or one of its own folders.
    private func checkCanHold(_ list: ListState, _ id: String, _ child: Child) throws {
        if let current = try parent(of: child), current != list.rowID {
            throw invalid("a collection can be in one folder only; remove it from its folder before adding it to \(id)")
        }
        guard case .list(let childRow) = child else { return }
        var ancestor: Int64? = list.rowID
        while let row = ancestor {
            if row == childRow { throw invalid("folder \(id) cannot hold itself or a folder that holds it") }
            ancestor = try parent(of: .list(row))
        }
    }

    private mutating func store(_ album: AlbumState, _ id: String) {
        var album = album
        album.dirty = true
        albums[id] = album
        record(.assetCollection, id, .updated)
    }

    // MARK: Log

    mutating func record(_ type: ObjectChangeRecord.ObjectType, _ id: String, _ kind: ObjectChangeRecord.Kind) {
        let key = ObjectKey(type: type, localIdentifier: id)
        guard let previous = log[key] else {
            log[key] = kind
            logOrder.append(key)
            return
        }
        switch (previous, kind) {
        case (.inserted, .updated), (.inserted, .restored): break
        case (.inserted, .deleted): log[key] = nil
        case (.trashed, .restored), (.restored, .trashed): log[key] = .updated
        default: log[key] = kind
        }
    }

    func invalid(_ message: String) -> LibraryError {
        .refusedChange(message)
    }
}
