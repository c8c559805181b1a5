import GRDB
import StackMobCore

/// Compiles a typed filter into a SQLite `WHERE` expression with bound arguments.
///
/// Field names were validated by the query parser and are quoted here; every value is a `?`.
/// Array fields are stored as JSON text and matched element-wise through `json_each`.
struct SQLiteFilterCompiler {
    /// The schema being queried: geo conditions go through its R*Tree.
    let schema: String
    private(set) var arguments: [DatabaseValue] = []

    mutating func compile(_ filter: TypedFilter) -> String {
        switch filter {
        case .all(let filters):
            return filters.isEmpty ? "1" : "(" + filters.map { compile($0) }.joined(separator: " AND ") + ")"
        case .any(let filters):
            return filters.isEmpty ? "0" : "(" + filters.map { compile($0) }.joined(separator: " OR ") + ")"
        case .condition(let condition):
            return compile(condition)
        case .access(let rows):
            return compile(rows, table: schema)
        }
    }

    private mutating func compile(_ condition: TypedCondition) -> String {
        let column = "\"\(condition.field)\""
        switch condition.target {
        case .scalar:
            switch condition.operation {
            case .near(let origin, let maxDistance):
                // Without a maximum every geopoint qualifies; the R*Tree still drives the read.
                guard let maxDistance else { return "rowid IN (SELECT id FROM \(SQLiteGeoIndex.table(schema)))" }
                return radius(column, origin, maxDistance)
            case .withinRadius(let center, let radius):
                return self.radius(column, center, radius)
            case .withinBox(let southWest, let northEast):
                return box(column, southWest, northEast)
            default:
                return comparison(column, condition.operation)
            }
        case .arrayElements:
            switch condition.operation {
            case .isNull(let isNull):
                return "\(column) IS \(isNull ? "" : "NOT ")NULL"
            case .notEqual(let value):
                return "NOT EXISTS (SELECT 1 FROM json_each(\(column)) WHERE value = \(bind(value)))"
            case .notIn(let values):
                return "NOT EXISTS (SELECT 1 FROM json_each(\(column)) WHERE value IN (\(bind(values))))"
            default:
                return "EXISTS (SELECT 1 FROM json_each(\(column)) WHERE \(comparison("value", condition.operation)))"
            }
        }
    }

    private mutating func comparison(_ column: String, _ operation: TypedCondition.Operation) -> String {
        switch operation {
        case .equal(let value): "\(column) = \(bind(value))"
        // A missing value is "not equal" too.
        case .notEqual(let value): "\(column) IS NOT \(bind(value))"
        case .lessThan(let value): "\(column) < \(bind(value))"
        case .lessOrEqual(let value): "\(column) <= \(bind(value))"
        case .greaterThan(let value): "\(column) > \(bind(value))"
        case .greaterOrEqual(let value): "\(column) >= \(bind(value))"
        case .isIn(let values): "\(column) IN (\(bind(values)))"
        case .notIn(let values): "(\(column) IS NULL OR \(column) NOT IN (\(bind(values))))"
        case .isNull(let isNull): "\(column) IS \(isNull ? "" : "NOT ")NULL"
        case .isEmpty(let isEmpty): "\(column) \(isEmpty ? "=" : "<>") ''"
        case .near, .withinRadius, .withinBox: "0"  // Only geopoint fields reach these; see `compile`.
        }
    }

    // MARK: - Geo

    /// Points within `radius` radians of `center`, inclusive: the R*Tree narrows to the bounding
    /// box, the exact great-circle distance decides.
    private mutating func radius(_ column: String, _ center: GeoPoint, _ radius: Double) -> String {
        let box = SQLiteGeoIndex.boundingBox(center: center, radius: radius)
        let prefilter = rtree(box.southWest, box.northEast)
        return "(\(prefilter) AND sm_distance(\(bind(.float(center.lat))), \(bind(.float(center.lon))), "
            + "json_extract(\(column), '$.lat'), json_extract(\(column), '$.lon')) <= \(bind(.float(radius))))"
    }

    /// Points inside the box, corners and edges included (clients depend on it). R*Tree boxes are
    /// rounded outwards to 32-bit floats, so the exact check runs on the stored doubles.
    private mutating func box(_ column: String, _ southWest: GeoPoint, _ northEast: GeoPoint) -> String {
        let crossesAntimeridian = southWest.lon > northEast.lon
        let prefilter = crossesAntimeridian
            ? rtree(GeoPoint(lat: southWest.lat, lon: -180), GeoPoint(lat: northEast.lat, lon: 180))
            : rtree(southWest, northEast)
        let lat = "json_extract(\(column), '$.lat')"
        let lon = "json_extract(\(column), '$.lon')"
        let latitude = "\(lat) BETWEEN \(bind(.float(southWest.lat))) AND \(bind(.float(northEast.lat)))"
        let longitude = crossesAntimeridian
            ? "(\(lon) >= \(bind(.float(southWest.lon))) OR \(lon) <= \(bind(.float(northEast.lon))))"
            : "\(lon) BETWEEN \(bind(.float(southWest.lon))) AND \(bind(.float(northEast.lon)))"
        return "(\(prefilter) AND \(latitude) AND \(longitude))"
    }

    private mutating func rtree(_ southWest: GeoPoint, _ northEast: GeoPoint) -> String {
        "rowid IN (SELECT id FROM \(SQLiteGeoIndex.table(schema)) WHERE max_lat >= \(bind(.float(southWest.lat))) "
            + "AND min_lat <= \(bind(.float(northEast.lat))) AND max_lon >= \(bind(.float(southWest.lon))) "
            + "AND min_lon <= \(bind(.float(northEast.lon))))"
    }

    mutating func bind(_ value: JSONValue) -> String {
        arguments.append(SQLiteValueMapping.databaseValue(value))
        return "?"
    }

    private mutating func bind(_ values: [JSONValue]) -> String {
        values.map { bind($0) }.joined(separator: ", ")
    }
}
