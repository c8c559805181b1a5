/// How `import` shows its progress: a bar redrawn in place on a terminal, plain lines otherwise
/// (a CI log), one per tenth of the objects.
public struct ImportProgress: Sendable {
    public let total: Int
    public let terminal: Bool

    public init(total: Int, terminal: Bool) {
        self.total = total
        self.terminal = terminal
    }

    /// What to print for `done` objects, or nil when nothing new is worth a line.
    public func text(done: Int, previous: Int) -> String? {
        if terminal {
            let width = 30
            let filled = total == 0 ? width : width * done / total
            let bar = String(repeating: "#", count: filled) + String(repeating: "-", count: width - filled)
            return "\r[\(bar)] \(done)/\(total) objects" + (done >= total ? "\n" : "")
        }
        let step = max(1, total / 10)
        guard done == total || done / step > previous / step else { return nil }
        return "Imported \(done) of \(total) objects\n"
    }
}
