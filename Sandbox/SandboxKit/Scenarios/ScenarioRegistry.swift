/// Every scenario the Sandbox knows, by name. Adding a scenario is one file with a type
/// conforming to ``Scenario`` plus its line here.
///
/// For example:
/// ```swift
/// let scenario = ScenarioRegistry.scenario(named: "import")
/// ```
public enum ScenarioRegistry {
    /// All scenarios, in the order `--scenario all` runs them.
    public static let all: [any Scenario.Type] = [
        BaselineScenario.self,
        ImportScenario.self,
        SingleSavesScenario.self,
        EditorScenario.self,
        EditorDuringImportScenario.self,
        ConflictsScenario.self,
        PagingScenario.self,
        ReorderScenario.self,
        ListDuringImportScenario.self,
        EngineScenario.self,
        MigrateScenario.self,
        SyncScenario.self,
        SearchScenario.self,
    ]

    /// The names, for `--help`.
    public static var names: [String] { all.map { $0.name } }

    /// The scenario called `name`, or nil.
    public static func scenario(named name: String) -> (any Scenario.Type)? {
        all.first { $0.name == name }
    }
}
