import Foundation
import GRDB
import StackMobCore

/// The spatial index of a schema's geopoint field (one per schema, PROTOCOL §5.8): an R*Tree
/// `_sm_geo_<schema>` keyed by the object's rowid, kept in step with the table by triggers, so it
/// is updated in the same transaction as every write and can never drift.
enum SQLiteGeoIndex {
    static func table(_ schema: String) -> String {
        "\"_sm_geo_\(schema)\""
    }

    static func create(schema: String, field: String, in db: Database) throws {
        let table = table(schema)
        let source = "\"\(schema)\""
        let column = "\"\(field)\""
        let values = "NEW.rowid, json_extract(NEW.\(column), '$.lat'), json_extract(NEW.\(column), '$.lat'), "
            + "json_extract(NEW.\(column), '$.lon'), json_extract(NEW.\(column), '$.lon')"
        try db.execute(sql: "CREATE VIRTUAL TABLE \(table) USING rtree(id, min_lat, max_lat, min_lon, max_lon)")
        try db.execute(sql: """
            CREATE TRIGGER "_sm_geo_\(schema).insert" AFTER INSERT ON \(source) WHEN NEW.\(column) IS NOT NULL
            BEGIN INSERT INTO \(table) VALUES (\(values)); END
            """)
        try db.execute(sql: """
            CREATE TRIGGER "_sm_geo_\(schema).update" AFTER UPDATE OF \(column) ON \(source)
            BEGIN
                DELETE FROM \(table) WHERE id = OLD.rowid;
                INSERT INTO \(table) SELECT \(values) WHERE NEW.\(column) IS NOT NULL;
            END
            """)
        try db.execute(sql: """
            CREATE TRIGGER "_sm_geo_\(schema).delete" AFTER DELETE ON \(source)
            BEGIN DELETE FROM \(table) WHERE id = OLD.rowid; END
            """)
        try db.execute(sql: "INSERT INTO \(table) SELECT rowid, json_extract(\(column), '$.lat'), json_extract(\(column), '$.lat'), "
            + "json_extract(\(column), '$.lon'), json_extract(\(column), '$.lon') FROM \(source) WHERE \(column) IS NOT NULL")
    }

    /// `sm_distance(lat1, lon1, lat2, lon2)`: great-circle distance in radians.
    static let distanceFunction = DatabaseFunction("sm_distance", argumentCount: 4, pure: true) { values in
        guard let lat1 = Double.fromDatabaseValue(values[0]), let lon1 = Double.fromDatabaseValue(values[1]),
            let lat2 = Double.fromDatabaseValue(values[2]), let lon2 = Double.fromDatabaseValue(values[3])
        else { return nil }
        return GeoPoint(lat: lat1, lon: lon1).distance(to: GeoPoint(lat: lat2, lon: lon2))
    }

    static func boundingBox(center: GeoPoint, radius: Double) -> (southWest: GeoPoint, northEast: GeoPoint) {
        center.boundingBox(radius: radius)
    }
}
