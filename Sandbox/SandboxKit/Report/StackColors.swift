/// The one colour of each stack, used by every chart, table cell and heading of the report.
///
/// For example:
/// ```swift
/// let fill = StackColors.color(of: "hybrid")   // "#00798c"
/// ```
public enum StackColors {
    /// Colours by stack name (`none` for runs without a stack).
    public static let byStack: [String: String] = [
        "mainContext": "#d1495b",
        "asyncSaving": "#e09f3e",
        "hybrid": "#00798c",
        "none": "#7a7a7a",
    ]

    /// The colour of `stack` (grey for a stack not listed).
    public static func color(of stack: String) -> String { byStack[stack] ?? "#7a7a7a" }

    /// CSS giving `.stack-NAME` its colour (text) and `.swatch-NAME` its colour (a square).
    public static func css() -> String {
        byStack.sorted { $0.key < $1.key }.map { name, color in
            ".stack-\(name) { color: \(color); font-weight: bold; } .swatch-\(name) { display: inline-block; width: 10px; height: 10px; background: \(color); margin: 0 4px 0 10px; }"
        }.joined(separator: "\n")
    }
}
