import Testing

@testable import StackMobHTTP

/// `String.isPath(inArea:)` and `isPath(under:)`: which requests the admin API, the console and
/// the stored files claim. A path that only starts with an area's name is not in it.
@Suite("Path areas")
struct PathAreaTests {
    @Test("an area holds itself and the paths under it, not the paths that only start like it")
    func areas() {
        let cases: [(path: String, area: String, inArea: Bool, under: Bool)] = [
            ("/_admin", "/_admin", true, false), ("/_admin/", "/_admin", true, true), ("/_admin/console/x", "/_admin", true, true),
            ("/_adminx", "/_admin", false, false), ("/_admi", "/_admin", false, false), ("/", "/_admin", false, false),
            ("", "/_admin", false, false), ("/x/_admin", "/_admin", false, false), ("/_ADMIN", "/_admin", false, false),
            ("/_admin/console", "/_admin/console", true, false), ("/_admin/consoles", "/_admin/console", false, false),
            ("/_files/production/a/b", "/_files", true, true), ("/_files", "/_files", true, false),
            ("/été/x", "/été", true, true), ("/ét", "/été", false, false),
        ]
        for (path, area, inArea, under) in cases {
            #expect(path.isPath(inArea: area) == inArea, "\(path) in \(area)")
            #expect(path.isPath(under: area) == under, "\(path) under \(area)")
        }
    }
}
