import Foundation
import Testing
@testable import StrataSync

@Suite("Cloud names and paths")
struct CloudPathTests {
    @Test("hostile names are refused with unsafeName", arguments: [
        "", ".", "..", "a/b", "a\\b", "nul\u{0}byte", "line\nbreak", "tab\there", "del\u{7F}",
        "c1\u{85}", "sep\u{2028}", "rtl\u{202E}gnp.exe", "iso\u{2066}late", "bad\u{FFFD}utf8",
        " leading", "trailing ", "trailing.", "...", String(repeating: "x", count: 256),
        String(repeating: "é", count: 128),  // 256 bytes of UTF-8
    ])
    func hostileNames(_ name: String) {
        #expect(syncErrorCode { _ = try CloudName(name) } == .unsafeName, "accepted \(name.debugDescription)")
    }

    @Test("ordinary names are accepted", arguments: [
        "events", "00000000000000000001_peer-a_events.strata", ".hidden", ".a.b", "a b", "é",
        "Ünïcødé", String(repeating: "x", count: 255), "name.with.dots",
    ])
    func ordinaryNames(_ name: String) throws {
        #expect(try CloudName(name).rawValue == name)
    }

    @Test("paths: absolute, empty components, traversal, depth and length are refused")
    func hostilePaths() {
        for text in ["/etc/passwd", "a//b", "a/", "a/../b", "../x", "a/./b", "a/b\0/c",
                     Array(repeating: "d", count: CloudPath.maxDepth + 1).joined(separator: "/"),
                     Array(repeating: String(repeating: "n", count: 200), count: 6).joined(separator: "/")] {
            #expect(syncErrorCode { _ = try CloudPath(text) } == .unsafeName, "accepted \(text.debugDescription)")
        }
    }

    @Test("paths parse, print and compose")
    func paths() throws {
        let root = try CloudPath("")
        #expect(root.isRoot && root == .root && root.parent == nil && root.lastName == nil)
        let events = try CloudPath("MainStore/events")
        #expect(events.names.map(\.rawValue) == ["MainStore", "events"])
        #expect(events.rawValue == "MainStore/events")
        #expect(events.parent == (try CloudPath("MainStore")))
        let file = try events.appending("f.strata")
        #expect(file.rawValue == "MainStore/events/f.strata")
        #expect(file.hasPrefix(events) && !events.hasPrefix(file))
        #expect(syncErrorCode { _ = try events.appending("..") } == .unsafeName)
        let deep = try CloudPath(Array(repeating: "d", count: CloudPath.maxDepth).joined(separator: "/"))
        #expect(syncErrorCode { _ = try deep.appending("one-more") } == .unsafeName)
    }
}
