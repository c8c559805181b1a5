extension String {
    /// Whether this path is `area` itself or a path under it (`area/…`), compared as bytes.
    ///
    /// Every request of the API port asks this of several areas before its route (the admin API,
    /// the console, stored files); `hasPrefix(area + "/")` made a string for each question
    /// (docs/benchmarks.md, "Figures behind design choices").
    func isPath(inArea area: String) -> Bool {
        self == area || isPath(under: area)
    }

    /// Whether this path lies under `area` (`area/…`), `area` itself not included.
    func isPath(under area: String) -> Bool {
        let path = utf8
        guard path.starts(with: area.utf8) else { return false }
        return path.dropFirst(area.utf8.count).first == UInt8(ascii: "/")
    }
}
