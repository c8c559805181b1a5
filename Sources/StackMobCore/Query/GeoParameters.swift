import Foundation

/// Reads `near` and `within` values (PROTOCOL §5.8, D35): latitude first, degrees, distances in
/// radians; numbers as the SDKs print them (`%f`, `Double.toString`, scientific notation).
enum GeoParameters {
    static func near(_ raws: [String], parameter: String) throws(QueryError) -> TypedCondition.Operation {
        let numbers = try parse(raws, parameter: parameter)
        guard numbers.count == 2 || numbers.count == 3 else {
            throw .malformedParameter(parameter: parameter, reason: "near takes lat,lon or lat,lon,maxDistanceInRadians")
        }
        let origin = try point(numbers[0], numbers[1], parameter: parameter)
        if numbers.count == 3 {
            return .near(origin, maxDistance: try distance(numbers[2], parameter: parameter))
        }
        return .near(origin, maxDistance: nil)
    }

    static func within(_ raws: [String], parameter: String) throws(QueryError) -> TypedCondition.Operation {
        let numbers = try parse(raws, parameter: parameter)
        switch numbers.count {
        case 3:
            return .withinRadius(try point(numbers[0], numbers[1], parameter: parameter), radius: try distance(numbers[2], parameter: parameter))
        case 4:
            let southWest = try point(numbers[0], numbers[1], parameter: parameter)
            let northEast = try point(numbers[2], numbers[3], parameter: parameter)
            guard southWest.lat <= northEast.lat else {
                throw .malformedParameter(parameter: parameter, reason: "the first corner must be the south-west one (latitude first)")
            }
            return .withinBox(southWest: southWest, northEast: northEast)
        default:
            throw .malformedParameter(parameter: parameter, reason: "within takes lat,lon,radiusInRadians or lat1,lon1,lat2,lon2")
        }
    }

    private static func parse(_ raws: [String], parameter: String) throws(QueryError) -> [Double] {
        var numbers: [Double] = []
        for raw in raws {
            guard let number = Double(raw.trimmingSpaces()), number.isFinite else {
                throw .malformedParameter(parameter: parameter, reason: "'\(raw)' is not a number")
            }
            numbers.append(number)
        }
        return numbers
    }

    private static func point(_ lat: Double, _ lon: Double, parameter: String) throws(QueryError) -> GeoPoint {
        guard (-90...90).contains(lat), (-180...180).contains(lon) else {
            throw .malformedParameter(parameter: parameter, reason: "latitude must be within -90…90 and longitude within -180…180")
        }
        return GeoPoint(lat: lat, lon: lon)
    }

    private static func distance(_ value: Double, parameter: String) throws(QueryError) -> Double {
        guard value >= 0 else { throw .malformedParameter(parameter: parameter, reason: "a distance cannot be negative") }
        return value
    }
}
