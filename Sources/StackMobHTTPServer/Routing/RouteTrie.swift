import Hummingbird

/// The API's paths, matched as Hummingbird's router matches them, for the two kinds of path
/// component the API's routes use: a constant (`listapi`) and a capture (`:schema`).
///
/// Hummingbird's own trie is not public; StackMobHTTP's `APIRouter` needs the match without the responder that
/// wraps it, whose frames were a measurable share of `HEAD /` (docs/benchmarks.md, "Figures behind
/// design choices"). The rules are Hummingbird's (`Trie+resolve.swift` in Hummingbird 2), and
/// `RouteTrieTests` holds this trie to them on the API's routes, path by path:
/// - a path is split at `/` (as `Character`s), empty components left out; no component at all is
///   the root;
/// - among a node's children the constants come first, then the captures, each in the order they
///   were added; a constant compares as `Substring`s do;
/// - the first component goes to the first child of the root that matches it, and no other;
///   below, each child that matches is tried in order until one matches the rest of the path;
/// - a capture sets its parameter when it matches, even on a branch that fails later;
/// - the path's node must hold a value, or nothing matches.
public struct RouteTrie<Value: Sendable>: Sendable {
    private enum Component: Sendable {
        case constant(Substring)
        case capture(Substring)

        func isSame(as other: Self) -> Bool {
            switch (self, other) {
            case (.constant(let a), .constant(let b)), (.capture(let a), .capture(let b)): a == b
            default: false
            }
        }
    }

    private struct Node: Sendable {
        let component: Component
        var children: [Int] = []
        var value: Value?
    }

    /// The root first; children are indices, in the order they are tried.
    private var nodes = [Node(component: .constant(""))]

    public init() {}

    /// The value at `path`, made by `make` when the path is new and updated by `update`.
    public mutating func add(_ path: RouterPath, make: () -> Value, update: (inout Value) -> Void) {
        var index = 0
        for element in path {
            let component = Self.component(of: element)
            if let child = nodes[index].children.first(where: { nodes[$0].component.isSame(as: component) }) {
                index = child
                continue
            }
            nodes.append(Node(component: component))
            let child = nodes.count - 1
            // Constants before captures; within each, the order they came in.
            var children = nodes[index].children
            let slot: Int
            if case .constant = component {
                slot = children.firstIndex { if case .capture = nodes[$0].component { true } else { false } } ?? children.endIndex
            } else {
                slot = children.endIndex
            }
            children.insert(child, at: slot)
            nodes[index].children = children
            index = child
        }
        var value = nodes[index].value ?? make()
        update(&value)
        nodes[index].value = value
    }

    /// The value `path` leads to, and the parameters its captures set; nil when none.
    public func resolve(_ path: String) -> (value: Value, parameters: Parameters)? {
        var parameters = Parameters()
        var components = path.split(separator: "/", omittingEmptySubsequences: true)[...]
        guard let first = components.popFirst() else {
            return nodes[0].value.map { ($0, parameters) }
        }
        // The root's first matching child only.
        guard let child = nodes[0].children.first(where: { matches(first, node: $0, parameters: &parameters) }),
            let node = descend(from: child, rest: components, parameters: &parameters),
            let value = nodes[node].value
        else { return nil }
        return (value, parameters)
    }

    private func descend(from index: Int, rest: ArraySlice<Substring>, parameters: inout Parameters) -> Int? {
        guard let component = rest.first else { return index }
        for child in nodes[index].children where matches(component, node: child, parameters: &parameters) {
            if let node = descend(from: child, rest: rest.dropFirst(), parameters: &parameters) {
                return node
            }
        }
        return nil
    }

    private func matches(_ text: Substring, node: Int, parameters: inout Parameters) -> Bool {
        switch nodes[node].component {
        case .constant(let constant):
            return constant == text
        case .capture(let name):
            parameters[name] = text
            return true
        }
    }

    /// A route's component; the API uses no other kind (a wildcard would be a programming error,
    /// caught when the routes are built).
    private static func component(of element: RouterPath.Element) -> Component {
        let text = element.description
        if text.hasPrefix("{"), text.hasSuffix("}") {
            let name = text.dropFirst().dropLast()
            if element == .capture(name) { return .capture(name) }
        }
        guard element == .path(Substring(text)) else {
            preconditionFailure("RouteTrie matches constants and captures only, not \(text)")
        }
        return .constant(Substring(text))
    }
}
