import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif

/// A small element tree read from an S3 response body with Foundation's `XMLParser`:
/// element names without namespace prefixes, the text directly inside each element, children
/// in document order. External entities are never resolved.
///
/// For example:
/// ```swift
/// let root = try S3XMLElement.parse(body)
/// let code = root.first("Code")?.text          // "NoSuchKey"
/// ```
struct S3XMLElement: Sendable, Equatable {
    /// The local name (`Contents`, `Key`, …).
    var name: String
    /// The character data directly inside this element.
    var text: String = ""
    /// The child elements in document order.
    var children: [S3XMLElement] = []

    /// The first direct child called `name`.
    func child(_ name: String) -> S3XMLElement? { children.first { $0.name == name } }

    /// The direct children called `name`.
    func children(named name: String) -> [S3XMLElement] { children.filter { $0.name == name } }

    /// This element or the first descendant (depth first) called `name`.
    func first(_ name: String) -> S3XMLElement? {
        if self.name == name { return self }
        for child in children {
            if let found = child.first(name) { return found }
        }
        return nil
    }

    /// Parses `data` into its root element; throws `SyncError.backendFailure` when it is not
    /// well-formed XML.
    static func parse(_ data: Data, what: String) throws(SyncError) -> S3XMLElement {
        let builder = TreeBuilder()
        let parser = XMLParser(data: data)
        parser.shouldProcessNamespaces = true
        parser.shouldResolveExternalEntities = false
        parser.delegate = builder
        let ok = parser.parse()
        guard ok, let root = builder.root else {
            let reason = parser.parserError.map { "\($0.localizedDescription)" } ?? "no root element"
            throw SyncError(.backendFailure, "the server's \(what) is not well-formed XML (\(reason))")
        }
        return root
    }

    /// Builds the tree from the parser's events. Lives only inside one `parse` call.
    private final class TreeBuilder: NSObject, XMLParserDelegate {
        var stack: [S3XMLElement] = []
        var root: S3XMLElement?
        /// Deeper than any S3 response; a body nested deeper is refused, not followed.
        let maxDepth = 32

        func parser(_ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?,
                    qualifiedName: String?, attributes: [String: String] = [:]) {
            if stack.count >= maxDepth { parser.abortParsing(); return }
            stack.append(S3XMLElement(name: elementName))
        }

        func parser(_ parser: XMLParser, foundCharacters string: String) {
            guard !stack.isEmpty else { return }
            stack[stack.count - 1].text += string
        }

        func parser(_ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?, qualifiedName: String?) {
            guard let element = stack.popLast() else { return }
            if stack.isEmpty { root = element } else { stack[stack.count - 1].children.append(element) }
        }
    }
}
