import Foundation

extension GeoPoint {
    /// A latitude/longitude box containing every point within `radius` radians of this point: how
    /// the engines narrow a radius search with their spatial index before the exact distance.
    public func boundingBox(radius: Double) -> (southWest: GeoPoint, northEast: GeoPoint) {
        let center = self
        let degrees = radius * 180 / .pi
        let south = center.lat - degrees
        let north = center.lat + degrees
        // Around a pole, or for huge radii, every longitude can be in range.
        let latitudeRadians = center.lat * .pi / 180
        let ratio = sin(radius) / cos(latitudeRadians)
        guard south > -90, north < 90, radius < .pi / 2, ratio < 1 else {
            return (GeoPoint(lat: max(south, -90), lon: -180), GeoPoint(lat: min(north, 90), lon: 180))
        }
        let longitudeDegrees = asin(ratio) * 180 / .pi
        let west = center.lon - longitudeDegrees
        let east = center.lon + longitudeDegrees
        guard west >= -180, east <= 180 else {
            // Crossing the antimeridian: the latitude band alone still narrows the search.
            return (GeoPoint(lat: south, lon: -180), GeoPoint(lat: north, lon: 180))
        }
        return (GeoPoint(lat: south, lon: west), GeoPoint(lat: north, lon: east))
    }
}
