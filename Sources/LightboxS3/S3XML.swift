/// The few parts of S3's XML answers Lightbox reads: an element's text, and the elements of a
/// repeated one (`<Contents>` of a listing). S3's answers have no attributes on what is read,
/// no CDATA and no nesting of an element in itself, so a scan of tags is enough; a server's
/// answer is untrusted, and the scan is linear in its size (bounded by the caller) with no
/// recursion.
struct S3XML {
    private let bytes: [UInt8]

    init(_ bytes: [UInt8]) {
        self.bytes = bytes
    }

    /// The text of the first `<name>` element, entities decoded; nil when there is none.
    func text(_ name: String) -> String? {
        texts(name).first
    }

    /// The text of every `<name>` element, in order.
    func texts(_ name: String) -> [String] {
        elements(name).map { Self.decode(Array($0.bytes)) }
    }

    /// Every `<name>` element's content, as a document of its own.
    func elements(_ name: String) -> [S3XML] {
        let open = Array("<\(name)>".utf8)
        let openWithAttributes = Array("<\(name) ".utf8)
        let close = Array("</\(name)>".utf8)
        let empty = Array("<\(name)/>".utf8)
        var found: [S3XML] = []
        var index = 0
        // The next place of each form of the start tag, searched again only once the scan has
        // passed it: a form that never comes is looked for once, not once per element, which
        // made a long answer of many elements quadratic.
        let forms = [open, openWithAttributes, empty]
        var next: [Int?] = forms.map { Self.find($0, in: bytes, from: 0) }
        while true {
            for (form, position) in next.enumerated() where (position ?? Int.max) < index {
                next[form] = Self.find(forms[form], in: bytes, from: index)
            }
            guard let start = next.compactMap({ $0 }).min() else { break }
            // Past the start tag's `>` (it may have attributes).
            guard let tagEnd = bytes[start...].firstIndex(of: UInt8(ascii: ">")) else { break }
            let contentStart = tagEnd + 1
            if bytes[tagEnd - 1] == UInt8(ascii: "/") {
                found.append(S3XML([]))
                index = contentStart
                continue
            }
            guard let end = Self.find(close, in: bytes, from: contentStart) else { break }
            found.append(S3XML(Array(bytes[contentStart..<end])))
            index = end + close.count
        }
        return found
    }

    private static func find(_ needle: [UInt8], in haystack: [UInt8], from start: Int) -> Int? {
        guard let first = needle.first, haystack.count >= needle.count, start <= haystack.count - needle.count else {
            return nil
        }
        var i = start
        let last = haystack.count - needle.count
        while i <= last {
            if haystack[i] == first, haystack[i..<(i + needle.count)].elementsEqual(needle) { return i }
            i += 1
        }
        return nil
    }

    /// Text with XML's five named entities and numeric references decoded; anything else kept.
    static func decode(_ text: [UInt8]) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(text.count)
        var i = 0
        while i < text.count {
            guard text[i] == UInt8(ascii: "&"),
                let semicolon = text[i..<min(text.count, i + 12)].firstIndex(of: UInt8(ascii: ";"))
            else {
                out.append(text[i])
                i += 1
                continue
            }
            let entity = String(decoding: text[(i + 1)..<semicolon], as: UTF8.self)
            var scalar: Unicode.Scalar?
            switch entity {
            case "amp": scalar = "&"
            case "lt": scalar = "<"
            case "gt": scalar = ">"
            case "quot": scalar = "\""
            case "apos": scalar = "'"
            default:
                if entity.hasPrefix("#x") || entity.hasPrefix("#X") {
                    scalar = UInt32(entity.dropFirst(2), radix: 16).flatMap(Unicode.Scalar.init)
                } else if entity.hasPrefix("#") {
                    scalar = UInt32(entity.dropFirst(), radix: 10).flatMap(Unicode.Scalar.init)
                }
            }
            guard let scalar else {
                out.append(text[i])
                i += 1
                continue
            }
            out.append(contentsOf: Array(String(Character(scalar)).utf8))
            i = semicolon + 1
        }
        return String(decoding: out, as: UTF8.self)
    }
}
