import Foundation

/// Types a parsed filter against a schema (PROTOCOL §5.2): numbers for number fields (scientific
/// notation included), `true/false/1/0` for booleans, strings as sent; array fields match on any
/// element. A value that cannot be read as its field's type is a 400 naming the parameter.
public enum QueryBinder {
    public static func bind(_ filter: QueryFilter, to schema: SchemaDefinition) throws(QueryError) -> TypedFilter {
        switch filter {
        case .all(let filters):
            var typed: [TypedFilter] = []
            for filter in filters { typed.append(try bind(filter, to: schema)) }
            return .all(typed)
        case .any(let filters):
            var typed: [TypedFilter] = []
            for filter in filters { typed.append(try bind(filter, to: schema)) }
            return .any(typed)
        case .condition(let condition):
            return .condition(try bind(condition, to: schema))
        }
    }

    /// The type a query sees for a field, or nil when the schema does not have it.
    static func queryType(of field: String, in schema: SchemaDefinition) -> FieldType? {
        switch field {
        case schema.primaryKey, SchemaDefinition.owner: .string
        case SchemaDefinition.createdDate, SchemaDefinition.lastModifiedDate: .integer
        default: schema.type(of: field)
        }
    }

    private static func bind(_ condition: QueryCondition, to schema: SchemaDefinition) throws(QueryError) -> TypedCondition {
        let parameter = condition.parameter
        let field = condition.field
        // As StackMob did, and as the iOS SDK's specs expect: a filter on a field the schema does
        // not have is a mistake to report (a typo matched nothing, silently), in every
        // environment; inference creates fields on writes only.
        guard let type = queryType(of: field, in: schema) else { throw .unknownField(field: field, schema: schema.name) }
        let scalar: FieldType
        let target: TypedCondition.Target
        switch type {
        case .geopoint:
            switch condition.comparison {
            case .isNull(let isNull): return TypedCondition(field: field, target: .scalar, operation: .isNull(isNull))
            case .near(let raws): return TypedCondition(field: field, target: .scalar, operation: try GeoParameters.near(raws, parameter: parameter))
            case .within(let raws): return TypedCondition(field: field, target: .scalar, operation: try GeoParameters.within(raws, parameter: parameter))
            default: throw .notQueryable(parameter: parameter, field: field)
            }
        case .password:
            if case .isNull(let isNull) = condition.comparison {
                return TypedCondition(field: field, target: .scalar, operation: .isNull(isNull))
            }
            throw .notQueryable(parameter: parameter, field: field)
        case .array(let element):
            scalar = element.scalarType
            target = .arrayElements
        case .relation(_, let toMany):
            // Relation values are ids; one-to-many is stored like an array of strings.
            scalar = .string
            target = toMany ? .arrayElements : .scalar
        default:
            scalar = type
            target = .scalar
        }
        func value(_ raw: String) throws(QueryError) -> JSONValue {
            guard let typed = typedValue(raw, as: scalar) else {
                throw .valueDoesNotFitType(parameter: parameter, field: field, type: type.name)
            }
            return typed
        }
        func values(_ raws: [String]) throws(QueryError) -> [JSONValue] {
            var typed: [JSONValue] = []
            for raw in raws { typed.append(try value(raw)) }
            return typed
        }
        let operation: TypedCondition.Operation
        switch condition.comparison {
        case .equal(let raw): operation = .equal(try value(raw))
        case .notEqual(let raw): operation = .notEqual(try value(raw))
        case .lessThan(let raw): operation = .lessThan(try value(raw))
        case .lessOrEqual(let raw): operation = .lessOrEqual(try value(raw))
        case .greaterThan(let raw): operation = .greaterThan(try value(raw))
        case .greaterOrEqual(let raw): operation = .greaterOrEqual(try value(raw))
        case .isIn(let raws): operation = .isIn(try values(raws))
        case .notIn(let raws): operation = .notIn(try values(raws))
        case .isNull(let isNull): operation = .isNull(isNull)
        case .near, .within:
            throw .malformedParameter(parameter: parameter, reason: "near and within apply to geopoint fields only")
        case .isEmpty(let isEmpty):
            guard scalar == .string else {
                throw .malformedParameter(parameter: parameter, reason: "[empty] applies to string fields only")
            }
            operation = .isEmpty(isEmpty)
        }
        return TypedCondition(field: field, target: target, operation: operation)
    }

    static func typedValue(_ raw: String, as type: FieldType) -> JSONValue? {
        switch type {
        case .string, .password, .binary:
            return .string(raw)
        case .integer:
            if let integer = Int64(raw) { return .integer(integer) }
            // `age[lt]=25.5` still compares numerically with an integer field.
            return finiteDouble(raw).map(JSONValue.float)
        case .float:
            return finiteDouble(raw).map(JSONValue.float)
        case .boolean:
            switch raw.lowercased() {
            case "true", "1": return .bool(true)
            case "false", "0": return .bool(false)
            default: return nil
            }
        case .relation:
            return .string(raw)
        case .array, .geopoint:
            return nil
        }
    }

    private static func finiteDouble(_ raw: String) -> Double? {
        guard let double = Double(raw.trimmingSpaces()), double.isFinite else { return nil }
        return double
    }
}
