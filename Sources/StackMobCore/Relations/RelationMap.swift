import Foundation

/// `X-StackMob-Relations` (PROTOCOL §6.5) as a tree: which fields of an object hold related
/// objects of which schema, and, below each, the same for the related object.
///
/// `author=user&author.friends=user` maps `author` to `user`, and `friends` of that user to `user`.
public struct RelationMap: Sendable, Equatable {
    public struct Entry: Sendable, Equatable {
        public var target: String
        public var children: RelationMap
    }

    public private(set) var entries: [String: Entry] = [:]

    public init() {}

    /// The nesting limit the protocol documents (§6.5).
    public static let maxDepth = 3

    /// Parses the header; an empty value is an empty map (and still makes POST an upsert, D2).
    public static func parse(_ header: String) throws(RelationError) -> RelationMap {
        var parsed: [(path: [String], target: String, entry: String)] = []
        for rawEntry in header.split(separator: "&") {
            let entry = rawEntry.trimmingSpaces()
            guard !entry.isEmpty else { continue }
            let parts = entry.split(separator: "=", omittingEmptySubsequences: false)
            guard parts.count == 2 else { throw .malformedRelations("'\(entry)' is not path=schema") }
            let path = parts[0].split(separator: ".", omittingEmptySubsequences: false).map(String.init)
            guard path.allSatisfy(Identifier.isValidFieldName) else { throw .malformedRelations("'\(parts[0])' is not a field path") }
            let target = parts[1].lowercased()
            guard Identifier.isValidSchemaName(target), !Identifier.isReservedSchemaName(target) else {
                throw .malformedRelations("'\(parts[1])' is not a schema name")
            }
            guard path.count <= maxDepth else { throw .relationsTooDeep(path: String(parts[0])) }
            parsed.append((path, target, entry))
        }
        // Parents before children, whatever the order they were listed in.
        var map = RelationMap()
        for (path, target, entry) in parsed.sorted(by: { $0.path.count < $1.path.count }) {
            try map.insert(path[...], target: target, entry: entry)
        }
        return map
    }

    /// An entry whose parent path has no entry is refused.
    private mutating func insert(_ path: ArraySlice<String>, target: String, entry: String) throws(RelationError) {
        let field = path.first!
        if path.count == 1 {
            if let existing = entries[field] {
                guard existing.target == target else { throw .malformedRelations("'\(field)' is mapped to two schemas") }
                return
            }
            entries[field] = Entry(target: target, children: RelationMap())
            return
        }
        guard var parent = entries[field] else {
            throw .malformedRelations("'\(entry)' has no entry for its parent '\(field)'")
        }
        try parent.children.insert(path.dropFirst(), target: target, entry: entry)
        entries[field] = parent
    }

    public var isEmpty: Bool { entries.isEmpty }
}
