import Foundation

extension S3Credentials {
    /// The credentials the environment gives, as AWS's own tools read them:
    /// `AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY` and `AWS_SESSION_TOKEN`; else the profile
    /// `AWS_PROFILE` (or `default`) of the credentials file `AWS_SHARED_CREDENTIALS_FILE` (or
    /// `~/.aws/credentials`). Throws, saying where it looked, when there are none.
    public static func fromEnvironment(_ environment: [String: String] = ProcessInfo.processInfo.environment) throws
        -> S3Credentials
    {
        if let key = environment["AWS_ACCESS_KEY_ID"], !key.isEmpty,
            let secret = environment["AWS_SECRET_ACCESS_KEY"], !secret.isEmpty
        {
            return S3Credentials(
                accessKeyID: key, secretAccessKey: secret,
                sessionToken: environment["AWS_SESSION_TOKEN"].flatMap { $0.isEmpty ? nil : $0 })
        }
        let home = environment["HOME"] ?? NSHomeDirectory()
        let file = environment["AWS_SHARED_CREDENTIALS_FILE"] ?? home + "/.aws/credentials"
        let profile = environment["AWS_PROFILE"] ?? "default"
        guard FileManager.default.fileExists(atPath: file) else {
            throw S3Error(
                .invalidLocation,
                "no credentials for object storage: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or write them in \(file)"
            )
        }
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: file),
            let size = attributes[.size] as? Int, size <= 1 << 20,
            let text = try? String(contentsOfFile: file, encoding: .utf8)
        else {
            throw S3Error(.invalidLocation, "\(file) is not a credentials file of at most 1 MiB of text")
        }
        let values = credentialsFile(text)[profile] ?? [:]
        guard let key = values["aws_access_key_id"], let secret = values["aws_secret_access_key"] else {
            throw S3Error(
                .invalidLocation, "\(file) has no aws_access_key_id and aws_secret_access_key in profile [\(profile)]")
        }
        return S3Credentials(accessKeyID: key, secretAccessKey: secret, sessionToken: values["aws_session_token"])
    }

    /// An INI file's sections, each a dictionary of its `name = value` lines; comments (`#`,
    /// `;`) and other lines are skipped.
    static func credentialsFile(_ text: String) -> [String: [String: String]] {
        var sections: [String: [String: String]] = [:]
        var current: String?
        for line in text.split(whereSeparator: \.isNewline) {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if trimmed.isEmpty || trimmed.hasPrefix("#") || trimmed.hasPrefix(";") { continue }
            if trimmed.hasPrefix("["), trimmed.hasSuffix("]") {
                current = String(trimmed.dropFirst().dropLast()).trimmingCharacters(in: .whitespaces)
                continue
            }
            guard let current, let equals = trimmed.firstIndex(of: "=") else { continue }
            let name = trimmed[..<equals].trimmingCharacters(in: .whitespaces).lowercased()
            let value = trimmed[trimmed.index(after: equals)...].trimmingCharacters(in: .whitespaces)
            sections[current, default: [:]][name] = value
        }
        return sections
    }
}
