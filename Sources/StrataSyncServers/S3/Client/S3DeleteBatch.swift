import Foundation

/// The body of a `DeleteObjects` request (`POST ?delete`, up to 1 000 keys, quiet mode) and
/// the reading of its answer, which lists the keys that could not be deleted.
enum S3DeleteBatch {
    /// The most keys one request may name.
    static let maxKeys = 1_000

    /// `<Delete><Quiet>true</Quiet><Object><Key>…</Key></Object>…</Delete>`, keys XML-escaped.
    static func body(keys: [String]) -> Data {
        var xml = #"<?xml version="1.0" encoding="UTF-8"?><Delete xmlns="http://s3.amazonaws.com/doc/2006-03-01/"><Quiet>true</Quiet>"#
        for key in keys { xml += "<Object><Key>\(escaped(key))</Key></Object>" }
        xml += "</Delete>"
        return Data(xml.utf8)
    }

    /// The `<Error>` entries of a `DeleteResult`: each failed key and its code.
    static func failures(in data: Data) throws(SyncError) -> [(key: String, code: String)] {
        if data.isEmpty { return [] }
        let root = try S3XMLElement.parse(data, what: "delete answer")
        guard root.name == "DeleteResult" else {
            throw SyncError(.backendFailure, "the server's delete answer is a <\(root.name)>, not a <DeleteResult>")
        }
        return root.children(named: "Error").map { ($0.child("Key")?.text ?? "?", $0.child("Code")?.trimmedText ?? "?") }
    }

    static func escaped(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for character in text {
            switch character {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&apos;"
            default: out.append(character)
            }
        }
        return out
    }
}
