import Testing
import StrataSyncServers

@Suite("StrataSyncServers module")
struct ModuleTests {
    @Test("the module re-exports StrataSync")
    func reexports() throws {
        #expect(try CloudPath("a/b").rawValue == "a/b")
    }
}
