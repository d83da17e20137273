import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif

/// One `<response>` of a `207 Multi-Status` answer to PROPFIND.
struct WebDAVEntry: Sendable, Equatable {
    /// The `href` as the server wrote it.
    var href: String
    /// Whether `resourcetype` holds `collection`.
    var isCollection: Bool
    /// `getcontentlength`, when given.
    var size: Int?
    /// The response-level `status`, or the `200` propstat's, as a number (200 when neither is given).
    var status: Int
}

/// Parses a `207 Multi-Status` body with Foundation's `XMLParser`, namespace-aware (only
/// elements in the `DAV:` namespace count, whatever prefix the server uses).
///
/// ```swift
/// let entries = try WebDAVMultiStatus.parse(body)
/// ```
final class WebDAVMultiStatus: NSObject, XMLParserDelegate {
    private var entries: [WebDAVEntry] = []
    private var stack: [String] = []
    private var text = ""
    private var current: Partial?

    private struct Partial {
        var href = ""
        var responseStatus: Int?
        var propstatStatus: Int?
        var propstatCollection = false
        var propstatSize: Int?
        var okCollection = false
        var okSize: Int?
        var sawOKPropstat = false
    }

    /// The responses in `data`; throws `SyncError/Code/backendFailure` when it is not a
    /// well-formed multistatus document.
    static func parse(_ data: Data, path: String?) throws -> [WebDAVEntry] {
        let delegate = WebDAVMultiStatus()
        let parser = XMLParser(data: data)
        parser.shouldProcessNamespaces = true
        parser.shouldReportNamespacePrefixes = false
        parser.shouldResolveExternalEntities = false
        parser.delegate = delegate
        // A truncated document can end without an error from some XMLParser builds: also
        // require every element closed.
        guard parser.parse(), delegate.sawMultistatus, !delegate.failed, delegate.stack.isEmpty, delegate.closedMultistatus else {
            let detail = parser.parserError.map { " (\($0.localizedDescription))" } ?? ""
            throw SyncError(.backendFailure, "the server's PROPFIND answer is not a valid WebDAV multistatus document\(detail)", path: path)
        }
        return delegate.entries
    }

    private var sawMultistatus = false
    private var closedMultistatus = false
    private var failed = false

    func parser(_ parser: XMLParser, parseErrorOccurred parseError: any Error) { failed = true }

    func parser(_ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?, qualifiedName qName: String?,
                attributes attributeDict: [String: String] = [:]) {
        let name = namespaceURI == "DAV:" ? elementName : "{\(namespaceURI ?? "")}\(elementName)"
        stack.append(name)
        text = ""
        switch name {
        case "multistatus": sawMultistatus = true
        case "response": current = Partial()
        case "propstat":
            current?.propstatStatus = nil
            current?.propstatCollection = false
            current?.propstatSize = nil
        case "collection" where stack.dropLast().last == "resourcetype":
            current?.propstatCollection = true
        default: break
        }
    }

    func parser(_ parser: XMLParser, foundCharacters string: String) { text += string }

    func parser(_ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?, qualifiedName qName: String?) {
        let name = stack.popLast() ?? ""
        let parent = stack.last
        let value = text.trimmingCharacters(in: .whitespacesAndNewlines)
        switch (name, parent) {
        case ("href", "response"):
            current?.href = value
        case ("status", "response"):
            current?.responseStatus = Self.statusCode(value)
        case ("status", "propstat"):
            current?.propstatStatus = Self.statusCode(value)
        case ("getcontentlength", "prop"):
            current?.propstatSize = Int(value)
        case ("propstat", _):
            if let status = current?.propstatStatus, (200..<300).contains(status), var partial = current {
                partial.sawOKPropstat = true
                partial.okCollection = partial.okCollection || partial.propstatCollection
                partial.okSize = partial.propstatSize ?? partial.okSize
                current = partial
            }
        case ("multistatus", nil):
            closedMultistatus = true
        case ("response", _):
            if let partial = current {
                let status = partial.responseStatus ?? (partial.sawOKPropstat ? 200 : 404)
                entries.append(WebDAVEntry(href: partial.href, isCollection: partial.okCollection, size: partial.okSize, status: status))
            }
            current = nil
        default: break
        }
        text = ""
    }

    /// `HTTP/1.1 200 OK` → 200.
    static func statusCode(_ line: String) -> Int? {
        let parts = line.split(separator: " ")
        guard parts.count >= 2 else { return nil }
        return Int(parts[1])
    }
}
