import StackMobCore

/// Compiles a typed filter into a PostgreSQL `WHERE` expression whose values are bound into the
/// statement being built; the same meaning as `SQLiteFilterCompiler`, operator for operator.
struct PostgresFilterCompiler {
    let schema: SchemaDefinition

    func compile(_ filter: TypedFilter, into statement: inout PostgresStatement) -> String {
        switch filter {
        case .all(let filters):
            return filters.isEmpty ? "TRUE" : "(" + filters.map { compile($0, into: &statement) }.joined(separator: " AND ") + ")"
        case .any(let filters):
            return filters.isEmpty ? "FALSE" : "(" + filters.map { compile($0, into: &statement) }.joined(separator: " OR ") + ")"
        case .condition(let condition):
            return compile(condition, into: &statement)
        case .access(let rows):
            return compile(rows, table: schema.name, into: &statement)
        }
    }

    private func compile(_ condition: TypedCondition, into statement: inout PostgresStatement) -> String {
        let column = quote(condition.field)
        switch condition.target {
        case .scalar:
            switch condition.operation {
            case .near(let origin, let maxDistance):
                guard let maxDistance else { return "\(column) IS NOT NULL" }
                return radius(column, origin, maxDistance, into: &statement)
            case .withinRadius(let center, let radius):
                return self.radius(column, center, radius, into: &statement)
            case .withinBox(let southWest, let northEast):
                return box(column, southWest, northEast, into: &statement)
            default:
                return comparison(column, condition.operation, into: &statement)
            }
        case .arrayElements:
            let elements = "jsonb_array_elements_text(\(column)::jsonb)"
            let element = "(sm_element.value)\(elementCast(condition.field))"
            switch condition.operation {
            case .isNull(let isNull):
                return "\(column) IS \(isNull ? "" : "NOT ")NULL"
            case .notEqual(let value):
                return "NOT EXISTS (SELECT 1 FROM \(elements) AS sm_element(value) WHERE \(element) = \(statement.bind(value)))"
            case .notIn(let values):
                return "NOT EXISTS (SELECT 1 FROM \(elements) AS sm_element(value) WHERE \(element) IN (\(bind(values, into: &statement))))"
            default:
                return "EXISTS (SELECT 1 FROM \(elements) AS sm_element(value) WHERE \(comparison(element, condition.operation, into: &statement)))"
            }
        }
    }

    /// Array elements come out of `jsonb_array_elements_text` as text; they are compared as the
    /// array's element type.
    private func elementCast(_ field: String) -> String {
        switch schema.type(of: field) {
        case .array(.integer): "::bigint"
        case .array(.float): "::double precision"
        case .array(.boolean): "::boolean"
        default: " COLLATE \"C\""
        }
    }

    private func comparison(_ column: String, _ operation: TypedCondition.Operation, into statement: inout PostgresStatement) -> String {
        switch operation {
        case .equal(let value): "\(column) = \(statement.bind(value))"
        // A missing value is "not equal" too.
        case .notEqual(let value): "\(column) IS DISTINCT FROM \(statement.bind(value))"
        case .lessThan(let value): "\(column) < \(statement.bind(value))"
        case .lessOrEqual(let value): "\(column) <= \(statement.bind(value))"
        case .greaterThan(let value): "\(column) > \(statement.bind(value))"
        case .greaterOrEqual(let value): "\(column) >= \(statement.bind(value))"
        case .isIn(let values): "\(column) IN (\(bind(values, into: &statement)))"
        case .notIn(let values): "(\(column) IS NULL OR \(column) NOT IN (\(bind(values, into: &statement))))"
        case .isNull(let isNull): "\(column) IS \(isNull ? "" : "NOT ")NULL"
        case .isEmpty(let isEmpty): "\(column) \(isEmpty ? "=" : "<>") ''"
        case .near, .withinRadius, .withinBox: "FALSE"  // Only geopoint fields reach these; see `compile`.
        }
    }

    // MARK: - Geo

    /// Points within `radius` radians of `center`, inclusive: the GiST index on the point narrows
    /// to the bounding box, the exact great-circle distance decides.
    private func radius(_ column: String, _ center: GeoPoint, _ radius: Double, into statement: inout PostgresStatement) -> String {
        let box = PostgresGeoIndex.boundingBox(center: center, radius: radius)
        let prefilter = insideBox(column, box.southWest, box.northEast, into: &statement)
        let distance = "sm_distance(\(statement.bind(center.lat)), \(statement.bind(center.lon)), "
            + "\(PostgresGeoIndex.latitude(column)), \(PostgresGeoIndex.longitude(column)))"
        return "(\(prefilter) AND \(distance) <= \(statement.bind(radius)))"
    }

    /// Points inside the box, corners and edges included (clients depend on it).
    private func box(_ column: String, _ southWest: GeoPoint, _ northEast: GeoPoint, into statement: inout PostgresStatement) -> String {
        guard southWest.lon > northEast.lon else { return insideBox(column, southWest, northEast, into: &statement) }
        // Across the antimeridian: two boxes.
        let west = insideBox(column, southWest, GeoPoint(lat: northEast.lat, lon: 180), into: &statement)
        let east = insideBox(column, GeoPoint(lat: southWest.lat, lon: -180), northEast, into: &statement)
        return "(\(west) OR \(east))"
    }

    /// `point <@ box` is answered by the field's GiST index (`PostgresGeoIndex`); the box test is
    /// inclusive and exact on the stored doubles.
    private func insideBox(_ column: String, _ southWest: GeoPoint, _ northEast: GeoPoint, into statement: inout PostgresStatement) -> String {
        "\(PostgresGeoIndex.point(column)) <@ box(point(\(statement.bind(southWest.lon)), \(statement.bind(southWest.lat))), "
            + "point(\(statement.bind(northEast.lon)), \(statement.bind(northEast.lat))))"
    }

    private func bind(_ values: [JSONValue], into statement: inout PostgresStatement) -> String {
        values.map { statement.bind($0) }.joined(separator: ", ")
    }

    // MARK: - Row rules (PROTOCOL §12)

    /// Columns are qualified with their table, so that a rule on the owner's user object (a
    /// subquery on the user table) never picks up a column of the outer table.
    func compile(_ rows: RowFilter, table: String, into statement: inout PostgresStatement) -> String {
        let prefix = "\(quote(table))."
        switch rows {
        case .nothing:
            return "FALSE"
        case .ownerIs(let owner):
            return "\(prefix)\(quote(SchemaDefinition.owner)) = \(statement.bind(owner))"
        case .primaryKeyIs(let field, let value):
            return "\(prefix)\(quote(field)) = \(statement.bind(value))"
        case .relationContains(let field, let toMany, let id):
            let column = "\(prefix)\(quote(field))"
            guard toMany else { return "\(column) = \(statement.bind(id))" }
            return "(\(column)::jsonb @> jsonb_build_array(\(statement.bind(id))::text))"
        case .ownerAmong(let userSchema, let primaryKey, let matching):
            let reference = statement.bind("\(userSchema)/")
            let inner = compile(matching, table: userSchema, into: &statement)
            return "\(prefix)\(quote(SchemaDefinition.owner)) IN (SELECT \(reference) || \(quote(userSchema)).\(quote(primaryKey)) "
                + "FROM \(quote(userSchema)) WHERE \(inner))"
        case .any(let filters):
            return filters.isEmpty ? "FALSE" : "(" + filters.map { compile($0, table: table, into: &statement) }.joined(separator: " OR ") + ")"
        }
    }
}
