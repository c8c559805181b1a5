/// Turns a client's JSON body into the typed values to store, checked against the schema as it
/// stands inside the write transaction (PROTOCOL §4.2, §4.6, §4.10).
///
/// Pure: it never touches storage, so every type rule is unit-tested on its own.
struct ObjectWritePlanner {
    enum Mode {
        case create
        case update

        func typeError(_ field: String) -> DatastoreError {
            switch self {
            case .create: .incompatibleType(field: field)
            case .update: .invalidType(field: field)
            }
        }
    }

    struct Plan: Equatable {
        /// The schema including any fields this write introduces.
        var definition: SchemaDefinition
        /// Conformed values by field; on update a `.null` value clears the field.
        var values: JSONObject
    }

    let inferenceEnabled: Bool
    let caller: Caller
    /// Fields the request maps to a related schema (`X-StackMob-Relations`): a new such field is a
    /// relationship rather than a string or an array (PROTOCOL §4.10).
    var relations: [String: String] = [:]

    /// Plans every field of `body` except the primary key, which the caller handles. `existing` is
    /// the stored object on update: `field[inc]` counts from its value (§6.7).
    func plan(_ body: JSONObject, schema: SchemaDefinition, mode: Mode, existing: JSONObject? = nil) throws(DatastoreError) -> Plan {
        let body = try resolvingCounters(in: body, existing: existing, mode: mode)
        var definition = schema
        var newFields: [String: FieldType] = [:]
        var values = JSONObject(minimumCapacity: body.count)
        // Sorted, so that the first offending field is reported the same way every time.
        for (field, value) in body.sorted(by: { $0.key < $1.key }) where field != schema.primaryKey {
            guard Identifier.isValidFieldName(field) else { throw .invalidFieldName(field) }
            // Whatever the field's type: no engine can store it whole.
            guard !FieldValueRules.containsNUL(value) else { throw .containsNUL(field: field) }
            switch field {
            case SchemaDefinition.createdDate, SchemaDefinition.lastModifiedDate:
                // Clients may send their own timestamps (offline sync, D25).
                switch value {
                case .null: continue
                case .integer(let milliseconds) where ObjectTimestamps.acceptedRange.contains(milliseconds): values[field] = value
                default: throw .invalidTimestamp(field: field)
                }
            case SchemaDefinition.owner:
                // Only a private-key request may set the owner (PROTOCOL §4.1).
                guard caller.isPrivateKey else { continue }
                switch value {
                case .null, .string: values[field] = value
                default: throw mode.typeError(field)
                }
            default:
                if let type = schema.type(of: field) {
                    if value.isNull {
                        if mode == .update { values[field] = .null }
                        continue
                    }
                    guard let conformed = FieldValueRules.conform(value, to: type) else { throw mode.typeError(field) }
                    values[field] = conformed
                } else {
                    if value.isNull { continue }
                    guard inferenceEnabled else { throw .unknownField(schema: schema.name, field: field) }
                    if let target = relations[field] {
                        let type = FieldType.relation(target: target, toMany: value.arrayValue != nil)
                        guard let conformed = FieldValueRules.conform(value, to: type) else { throw mode.typeError(field) }
                        newFields[field] = type
                        values[field] = conformed
                        continue
                    }
                    switch FieldValueRules.infer(value) {
                    case .type(let type):
                        // One geopoint per schema (§5.8): `near` must know which field to use.
                        if type == .geopoint, let other = (schema.fields.merging(newFields) { a, _ in a }).first(where: { $0.value == .geopoint })?.key {
                            throw .secondGeopoint(field: field, existing: other)
                        }
                        newFields[field] = type
                        values[field] = FieldValueRules.conform(value, to: type)
                    case .noType:
                        continue
                    case .subObject:
                        throw .subObjectWithoutRelation(field: field)
                    case .mixedArray:
                        throw mode.typeError(field)
                    }
                }
            }
        }
        if !newFields.isEmpty {
            definition = definition.adding(newFields)
            guard definition.fields.count <= SchemaDefinition.maxInferredFields else {
                throw .tooManyFields(schema: schema.name, limit: SchemaDefinition.maxInferredFields)
            }
        }
        return Plan(definition: definition, values: values)
    }
}
