import Foundation
import Hummingbird
import Lightbox
import NIOCore
import ServiceLifecycle

/// What changed in the library, asked for (the persistent history) or pushed (Server-Sent
/// Events). Each route's contract is its `APIOperation` (docs/API.md).
struct ChangeRoutes: Sendable {
    /// The most transactions one page of `/api/changes` holds.
    static let maximumPage = LightboxServer.maximumChangesPage
    /// The most transactions a stream replays before going live; further behind, 410.
    static let maximumCatchUp = 10_000
    /// The most fetches one stream watches.
    static let maximumWatches = 8
    static let heartbeat: Duration = .seconds(20)

    struct ChangesPage: Encodable {
        var currentToken: PersistentChangeToken
        var changes: [PersistentChange]
        /// The `since` value for the next page; absent on the last page.
        var next: PersistentChangeToken?
    }

    struct FetchChange: Encodable {
        var watch: Int
        var count: Int
        var hasIncrementalChanges: Bool
        var removedIndexes: [Int]
        var insertedIndexes: [Int]
        var changedIndexes: [Int]
        var moves: [[Int]]
        var insertedIdentifiers: [String]
        var changedIdentifiers: [String]
    }

    struct ChangeEvent: Encodable {
        var changeToken: PersistentChangeToken
        var changes: PersistentChange
        var fetches: [FetchChange]
    }

    struct ReadyEvent: Encodable {
        struct Fetch: Encodable {
            var watch: Int
            var count: Int
        }
        var changeToken: PersistentChangeToken
        var fetches: [Fetch]
    }

    static let changesOperation = APIOperation(
        "The persistent changes since a token, a page at a time.",
        details: """
            What each transaction inserted, updated and deleted, `limit` (at most 1,000) at a time; pass `next`
            as `since` for the following page. 410 when the token has expired (fetch everything again), 400 for
            a token from the future.
            """,
        parameters: [
            .query("since", Schema.integer(0...Int.max), required: true, "A change token."),
            .query("limit", Schema.integer(1...maximumPage), "The most transactions in the page."),
        ],
        responses: [.json(200, "The page; `next` is the following page's `since`.", Schema.ref("ChangesPage"))])

    @Sendable
    func changes(_ request: Request, _ context: LightboxRequestContext) async throws -> Response {
        let library = try context.library().library
        let query = request.uri.formQuery
        guard let since = query.get("since").flatMap({ PersistentChangeToken(String($0)) }) else {
            throw HTTPError(.badRequest, message: "since must be a change token (a number)")
        }
        let limit = try query.limit(default: Self.maximumPage, maximum: Self.maximumPage)
        let (current, changes) = try await library.read { library in
            (try library.currentChangeToken(), try library.fetchPersistentChanges(since: since, limit: limit + 1))
        }
        let page = Array(changes.prefix(limit))
        return try LightboxServer.jsonResponse(
            ChangesPage(
                currentToken: current, changes: page, next: changes.count > limit ? page.last?.changeToken : nil))
    }

    static let changeStreamOperation = APIOperation(
        "Server-Sent Events: each transaction as it commits, with the watched fetches' RICE details.",
        details: """
            First every transaction after `since` (or the `Last-Event-ID` a reconnecting `EventSource` sends),
            then each as it commits: `event: change` with the token as `id` and `{"changeToken", "changes",
            "fetches"}` as data. Each `watch` (up to 8; empty for every asset) registers a fetch: for a
            transaction that changes it, `fetches` holds its RICE details (removed, inserted and changed
            indexes, moves, the identifiers inserted and changed, the new count). A first `event: ready` gives
            the current token and each fetch's count. A token older than the history kept, or more than 10,000
            transactions behind, is 410: refetch, then stream from the current token. A comment every 20 s keeps
            proxies from closing a quiet stream.
            """,
        parameters: [
            .query("since", Schema.integer(0...Int.max), "Replay the transactions after this token first."),
            .query(
                "watch", Schema.string,
                "A predicate whose fetch's changes come with each event (repeatable, at most 8)."),
            .query("sort", Schema.string, "The watched fetches' sort."),
            .header(
                "Last-Event-ID", Schema.string, "What a reconnecting EventSource sends: the last token seen."),
        ],
        responses: [.init(status: 200, description: "The stream.", content: .eventStream)])

    @Sendable
    func changeStream(_ request: Request, _ context: LightboxRequestContext) async throws -> Response {
        let library = try context.library().library
        let query = request.uri.formQuery
        let sinceText = query.get("since").map { String($0) } ?? request.headers[.init("Last-Event-ID")!]
        let since = try sinceText.map { text -> PersistentChangeToken in
            guard let token = PersistentChangeToken(text) else {
                throw HTTPError(.badRequest, message: "since must be a change token (a number)")
            }
            return token
        }
        let watches = query.getAll("watch").map { String($0) }
        guard watches.count <= Self.maximumWatches else {
            throw HTTPError(.badRequest, message: "a stream watches at most \(Self.maximumWatches) fetches")
        }
        var options = FetchOptions()
        options.sortDescriptors = try query.get("sort").map { try FetchSortDescriptor.parse(String($0)) } ?? []
        var fetches: [FetchOptions] = []
        for watch in watches {
            var fetch = options
            fetch.predicate = watch.isEmpty ? nil : try FetchPredicate(watch)
            fetches.append(fetch)
        }
        // Listening starts before the history is read, so nothing falls between the two.
        let live = try library.changes()
        let watched = fetches
        let (current, backlog, results) = try await library.read { library in
            let current = try library.currentChangeToken()
            var backlog: [PersistentChange] = []
            if let since {
                guard current.rawValue - since.rawValue <= Int64(Self.maximumCatchUp) else {
                    throw LibraryError(
                        .persistentChangeTokenExpired,
                        "the stream is more than \(Self.maximumCatchUp) transactions behind: fetch again, then stream from \(current)"
                    )
                }
                backlog = try library.fetchPersistentChanges(since: since)
            }
            return (current, backlog, try watched.map { try library.fetchAssets(options: $0) })
        }
        var headers = HTTPFields()
        headers[.contentType] = "text/event-stream"
        headers[.cacheControl] = "no-store"
        let body = ResponseBody { writer in
            var results = results
            var last = current
            try await writer.write(
                Self.event(
                    "ready", id: nil,
                    ReadyEvent(
                        changeToken: current,
                        fetches: results.enumerated().map { .init(watch: $0.offset, count: $0.element.count) })))
            for change in backlog {
                try await writer.write(
                    Self.event(
                        "change", id: change.changeToken,
                        ChangeEvent(changeToken: change.changeToken, changes: change, fetches: [])))
            }
            // Changes and heartbeats, merged: whichever comes first is written. A server
            // shutting down ends the stream rather than waiting for a client that never leaves.
            let (merged, continuation) = AsyncStream<PhotoLibraryChange?>.makeStream()
            let forward = Task {
                for await change in live { continuation.yield(change) }
                continuation.finish()
            }
            let beat = Task {
                while !Task.isCancelled {
                    try await Task.sleep(for: Self.heartbeat)
                    continuation.yield(nil)
                }
            }
            defer {
                forward.cancel()
                beat.cancel()
            }
            try await withGracefulShutdownHandler {
                for await item in merged {
                    guard let change = item else {
                        try await writer.write(ByteBuffer(string: ": still here\n\n"))
                        continue
                    }
                    guard change.changeToken > last else { continue }
                    last = change.changeToken
                    let fetches = Self.details(of: change, in: &results)
                    try await writer.write(
                        Self.event(
                            "change", id: change.changeToken,
                            ChangeEvent(
                                changeToken: change.changeToken, changes: change.persistentChange,
                                fetches: fetches)))
                }
            } onGracefulShutdown: {
                continuation.finish()
            }
            try await writer.finish(nil)
        }
        return Response(status: .ok, headers: headers, body: body)
    }

    /// The RICE details of the watched fetches a change touches; `results` become the fetches
    /// after it.
    static func details(of change: PhotoLibraryChange, in results: inout [FetchResult<Asset>]) -> [FetchChange] {
        var changed: [FetchChange] = []
        for index in results.indices {
            guard let details = change.details(for: results[index]) else { continue }
            let after = details.fetchResultAfterChanges
            changed.append(
                FetchChange(
                    watch: index, count: after.count, hasIncrementalChanges: details.hasIncrementalChanges,
                    removedIndexes: details.removedIndexes, insertedIndexes: details.insertedIndexes,
                    changedIndexes: details.changedIndexes, moves: details.moves.map { [$0.from, $0.to] },
                    insertedIdentifiers: details.insertedObjects.map(\.localIdentifier),
                    changedIdentifiers: details.changedObjects.map(\.localIdentifier)))
            results[index] = after
        }
        return changed
    }

    /// One Server-Sent Event: its name, its id, its data as one line of JSON.
    static func event(_ name: String, id: PersistentChangeToken?, _ data: some Encodable) throws -> ByteBuffer {
        let json = String(decoding: try JSONEncoder.lightbox.encode(data), as: UTF8.self)
        var text = "event: \(name)\n"
        if let id { text += "id: \(id)\n" }
        text += "data: \(json)\n\n"
        return ByteBuffer(string: text)
    }
}
