import ArgumentParser
import Foundation
import LightboxAnalysis

/// `--analysis URL`: the analysis services (docs/ANALYSIS.md) that find faces for `serve` and
/// `worker`, on this machine or others, several sharing the work.
struct AnalysisOptions: ParsableArguments {
    @Option(
        name: .customLong("analysis"),
        help: ArgumentHelp(
            "An analysis service that finds faces, e.g. http://127.0.0.1:8700 (repeatable: several share the work).",
            valueName: "URL"))
    var services: [String] = []

    /// The services as one analyzer; nil when none is given.
    func analyzer() throws -> AnalysisPool? {
        guard !services.isEmpty else { return nil }
        let urls = try services.map { text -> URL in
            guard let url = URL(string: text), let scheme = url.scheme?.lowercased(),
                ["http", "https"].contains(scheme),
                let host = url.host, !host.isEmpty
            else { throw ValidationError("--analysis wants an http:// or https:// address, not \(text)") }
            return url
        }
        return AnalysisPool(urls.map { AnalysisClient(url: $0) })
    }

    /// One line for the terminal: the model the services run, or why faces wait.
    static func describe(_ pool: AnalysisPool?) async -> String? {
        guard let pool else { return nil }
        do {
            let info = try await pool.describe()
            let leftOut = await pool.leftOut
            return "Faces: \(info.faceModel), \(info.concurrent) at once"
                + (leftOut.isEmpty ? "" : " (" + leftOut.joined(separator: "; ") + ")")
        } catch {
            return "Faces wait: \(error)"
        }
    }
}
