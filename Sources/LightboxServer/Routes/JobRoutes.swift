import Foundation
import Hummingbird
import Lightbox

/// The caller's library's background jobs (see `PhotoLibrary+Jobs`). Each route's contract is
/// its `APIOperation` (docs/API.md).
struct JobRoutes: Sendable {
    struct Retried: Encodable {
        var retried: Int
    }

    static let jobsOperation = APIOperation(
        "The library's background jobs: waiting by kind, running with their worker and progress, failed.",
        details: """
            A limited caller (a limited token, a shared album's audience) sees no job: their subjects name
            assets outside what it may see (403).
            """,
        responses: [.json(200, "The queue.", Schema.ref("JobQueue"))])

    @Sendable
    func jobs(_ _: Request, _ context: LightboxRequestContext) async throws -> Response {
        try LightboxServer.jsonResponse(try await Self.wholeLibrary(context).jobQueue())
    }

    static let retryJobsOperation = APIOperation(
        "Makes the jobs that failed too often wait again.",
        responses: [.json(200, "How many.", Schema.ref("JobsRetried"))])

    @Sendable
    func retryJobs(_ _: Request, _ context: LightboxRequestContext) async throws -> Response {
        try LightboxServer.jsonResponse(Retried(retried: try await Self.wholeLibrary(context).retryFailedJobs()))
    }

    /// The caller's library, unless they see only part of it (403).
    private static func wholeLibrary(_ context: LightboxRequestContext) throws -> PhotoLibrary {
        let library = try context.library().library
        guard !library.isLimited else { throw HTTPError(.forbidden, message: "limited access sees no job") }
        return library
    }
}
