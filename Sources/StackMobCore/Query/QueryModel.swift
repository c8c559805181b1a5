import Foundation

/// The StackMob query language (PROTOCOL §5.1–5.2) as parsed from a query string, before the
/// values are typed against a schema.
public indirect enum QueryFilter: Sendable, Equatable {
    case all([QueryFilter])
    case any([QueryFilter])
    case condition(QueryCondition)
}

public struct QueryCondition: Sendable, Equatable {
    public var field: String
    public var comparison: QueryComparison
    /// The query parameter as sent, for error messages.
    public var parameter: String

    public init(field: String, comparison: QueryComparison, parameter: String) {
        self.field = field
        self.comparison = comparison
        self.parameter = parameter
    }
}

public enum QueryComparison: Sendable, Equatable {
    case equal(String)
    case notEqual(String)
    case lessThan(String)
    case lessOrEqual(String)
    case greaterThan(String)
    case greaterOrEqual(String)
    case isIn([String])
    case notIn([String])
    case isNull(Bool)
    case isEmpty(Bool)
    /// `lat,lon[,maxRadians]`, as sent.
    case near([String])
    /// `lat,lon,radians` or `lat1,lon1,lat2,lon2` (south-west, then north-east), as sent.
    case within([String])
}

/// A condition whose value is typed by the field's schema type, ready for a storage engine.
public struct TypedCondition: Sendable, Equatable {
    public enum Target: Sendable, Equatable {
        /// A scalar column: compared directly.
        case scalar
        /// An array column: a comparison matches when any element matches.
        case arrayElements
    }

    public enum Operation: Sendable, Equatable {
        case equal(JSONValue)
        case notEqual(JSONValue)
        case lessThan(JSONValue)
        case lessOrEqual(JSONValue)
        case greaterThan(JSONValue)
        case greaterOrEqual(JSONValue)
        case isIn([JSONValue])
        case notIn([JSONValue])
        case isNull(Bool)
        case isEmpty(Bool)
        /// Sorted by distance from the point, optionally no farther than `maxDistance` radians.
        case near(GeoPoint, maxDistance: Double?)
        case withinRadius(GeoPoint, radius: Double)
        /// Inclusive box from the south-west to the north-east corner.
        case withinBox(southWest: GeoPoint, northEast: GeoPoint)
    }

    public var field: String
    public var target: Target
    public var operation: Operation

    public init(field: String, target: Target, operation: Operation) {
        self.field = field
        self.target = target
        self.operation = operation
    }
}

public indirect enum TypedFilter: Sendable, Equatable {
    case all([TypedFilter])
    case any([TypedFilter])
    case condition(TypedCondition)
    /// The rows schema permissions let the caller touch (PROTOCOL §12), compiled into the same
    /// statement as the query.
    case access(RowFilter)
}

public struct GeoPoint: Sendable, Equatable {
    public var lat: Double
    public var lon: Double

    public init(lat: Double, lon: Double) {
        self.lat = lat
        self.lon = lon
    }

    /// Great-circle distance in radians (haversine), the unit StackMob clients expect (§5.8).
    public func distance(to other: GeoPoint) -> Double {
        let toRadians = Double.pi / 180
        let lat1 = lat * toRadians, lat2 = other.lat * toRadians
        let dLat = lat2 - lat1, dLon = (other.lon - lon) * toRadians
        let a = sin(dLat / 2) * sin(dLat / 2) + cos(lat1) * cos(lat2) * sin(dLon / 2) * sin(dLon / 2)
        return 2 * asin(min(1, sqrt(a)))
    }
}

extension JSONObject {
    /// Adds `distance` (radians) to the geopoint in `field`, as each result of a `near` query
    /// carries it (§5.8); an object without a point there is left as it is.
    public mutating func giveDistance(_ distance: Double, toPointIn field: String) {
        guard case .object(var point)? = self[field] else { return }
        point["distance"] = .float(distance)
        self[field] = .object(point)
    }
}

extension TypedFilter {
    /// The first `near` condition: it decides the order and adds `distance` to each result.
    public var nearCondition: (field: String, origin: GeoPoint)? {
        switch self {
        case .all(let filters), .any(let filters):
            for filter in filters { if let near = filter.nearCondition { return near } }
            return nil
        case .condition(let condition):
            if case .near(let origin, _) = condition.operation { return (condition.field, origin) }
            return nil
        case .access:
            return nil
        }
    }
}
