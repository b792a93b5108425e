import Foundation
import Hummingbird
import Lightbox

/// The caller's library's background jobs (see `PhotoLibrary+Jobs`). Each route's contract is
/// its `APIOperation` (docs/API.md).
enum JobRoutes {
    struct Retried: Encodable {
        var retried: Int
    }

    static func add(to routes: Routes) {
        routes.get(
            "/api/jobs",
            doc: APIOperation(
                "The library's background jobs: waiting by kind, running with their worker and progress, failed.",
                details: """
                    A limited caller (a limited token, a shared album's audience) sees no job: their subjects name
                    assets outside what it may see (403).
                    """,
                responses: [.json(200, "The queue.", Schema.ref("JobQueue"))])
        ) { _, context in
            try LightboxServer.jsonResponse(try await wholeLibrary(context).jobQueue())
        }
        routes.post(
            "/api/jobs/retry",
            doc: APIOperation(
                "Makes the jobs that failed too often wait again.",
                responses: [.json(200, "How many.", Schema.ref("JobsRetried"))])
        ) { _, context in
            try LightboxServer.jsonResponse(Retried(retried: try await wholeLibrary(context).retryFailedJobs()))
        }
    }

    /// The caller's library, unless they see only part of it (403).
    private static func wholeLibrary(_ context: LightboxRequestContext) throws -> PhotoLibrary {
        let library = try context.library().library
        guard !library.isLimited else { throw HTTPError(.forbidden, message: "limited access sees no job") }
        return library
    }
}
