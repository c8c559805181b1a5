import Foundation
import StackMobCore

/// The spatial index of a geopoint field: a GiST index on the expression
/// `point(lon, lat)` of the stored JSON text, which PostgreSQL keeps in step with every write.
/// A bounding box (`<@ box`) reads it; the exact great-circle distance (`sm_distance`, migration
/// v001) decides. Built-in PostgreSQL: no PostGIS needed.
enum PostgresGeoIndex {
    static func latitude(_ column: String) -> String {
        "((\(column)::jsonb ->> 'lat')::double precision)"
    }

    static func longitude(_ column: String) -> String {
        "((\(column)::jsonb ->> 'lon')::double precision)"
    }

    static func point(_ column: String) -> String {
        "point(\(longitude(column)), \(latitude(column)))"
    }

    static func createStatement(schema: String, field: String) -> String {
        let name = PostgresIndexStatements.identifier("_sm_geo_\(schema).\(field)")
        return "CREATE INDEX IF NOT EXISTS \(quote(name)) ON \(quote(schema)) USING gist ((\(point(quote(field)))))"
    }

    static func boundingBox(center: GeoPoint, radius: Double) -> (southWest: GeoPoint, northEast: GeoPoint) {
        center.boundingBox(radius: radius)
    }
}
