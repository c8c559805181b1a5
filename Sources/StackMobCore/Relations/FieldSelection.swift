/// `X-StackMob-Select` as a tree (PROTOCOL §5.4): `a`, `a.b`, `a.*`. A dotted path selects into
/// the object expanded under relation `a`; selecting into a relation that is not expanded is a
/// 400 (D27).
struct FieldSelection: Sendable, Equatable {
    indirect enum Node: Sendable, Equatable {
        /// The whole value.
        case all
        /// Some fields of the related object(s); `*` selects every field.
        case fields([String: Node])
    }

    let fields: [String: Node]

    init(_ paths: [String]) {
        var root: [String: Node] = [:]
        for path in paths {
            Self.insert(path.split(separator: ".").map(String.init)[...], into: &root)
        }
        fields = root
    }

    private static func insert(_ components: ArraySlice<String>, into level: inout [String: Node]) {
        guard let first = components.first else { return }
        let rest = components.dropFirst()
        if rest.isEmpty || level[first] == .all {
            level[first] = .all
            return
        }
        var children: [String: Node] = [:]
        if case .fields(let existing)? = level[first] { children = existing }
        insert(rest, into: &children)
        level[first] = .fields(children)
    }

    /// Checks every path against the schemas: plain fields must exist, a dotted path must go
    /// through relations expanded at least that deep.
    func validate(schema: SchemaDefinition, depth: Int, registry: SchemaRegistry) throws(QueryError) {
        try Self.validate(fields, schema: schema, depth: depth, registry: registry, prefix: "")
    }

    private static func validate(
        _ level: [String: Node], schema: SchemaDefinition, depth: Int, registry: SchemaRegistry, prefix: String
    ) throws(QueryError) {
        for (field, node) in level.sorted(by: { $0.key < $1.key }) where field != "*" {
            let path = prefix + field
            guard let type = QueryBinder.queryType(of: field, in: schema) else {
                throw .unknownField(field: path, schema: schema.name)
            }
            guard case .fields(let children) = node else { continue }
            guard case .relation(let target, _) = type else {
                throw .invalidSelect("'\(path)' is not a relationship, so '\(path).…' selects nothing")
            }
            guard depth > 0 else {
                throw .invalidSelect("'\(path).…' selects into a relation that is not expanded (ask for it with X-StackMob-Expand or _expand)")
            }
            // A target schema with no objects yet: nothing to check the fields against.
            guard let targetSchema = registry.definition(named: target) else { continue }
            try validate(children, schema: targetSchema, depth: depth - 1, registry: registry, prefix: path + ".")
        }
    }

    /// The selected part of an (expanded) object; the primary key is always kept.
    func apply(to object: JSONObject, schema: SchemaDefinition, registry: SchemaRegistry) -> JSONObject {
        Self.apply(fields, to: object, schema: schema, registry: registry)
    }

    private static func apply(_ level: [String: Node], to object: JSONObject, schema: SchemaDefinition, registry: SchemaRegistry) -> JSONObject {
        if level["*"] != nil { return object }
        var selected = JSONObject(minimumCapacity: level.count + 1)
        selected[schema.primaryKey] = object[schema.primaryKey]
        for (field, node) in level {
            guard let value = object[field] else { continue }
            guard case .fields(let children) = node, let target = schema.type(of: field)?.relationTarget,
                let targetSchema = registry.definition(named: target)
            else {
                selected[field] = value
                continue
            }
            switch value {
            case .object(let related):
                selected[field] = .object(apply(children, to: related, schema: targetSchema, registry: registry))
            case .array(let elements):
                selected[field] = .array(elements.map { element in
                    guard case .object(let related) = element else { return element }
                    return .object(apply(children, to: related, schema: targetSchema, registry: registry))
                })
            default:
                selected[field] = value
            }
        }
        return selected
    }
}
