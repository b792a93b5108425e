import Foundation

/// The words of a search's text as the full text compares them: runs of letters and digits,
/// lowercased, each at most ``maximumLength`` characters, at most ``maximumCount`` of them (what
/// is past either is not searched: a pasted page costs no more than a line).
public enum SearchWords {
    public static let maximumCount = 16
    public static let maximumLength = 64

    public static func tokens(of text: String) -> [String] {
        var tokens: [String] = []
        var current = ""
        func flush() {
            if !current.isEmpty, tokens.count < maximumCount { tokens.append(String(current.prefix(maximumLength))) }
            current = ""
        }
        for character in text.lowercased() {
            if character.isLetter || character.isNumber {
                current.append(character)
            } else {
                flush()
            }
        }
        flush()
        return tokens
    }
}
