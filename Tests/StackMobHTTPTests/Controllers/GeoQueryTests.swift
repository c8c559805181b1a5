import Foundation
import StackMobCore
import StackMobTestSupport
import Testing

/// Geo queries (PROTOCOL §5.8): distances in radians, latitude first, inclusive boundaries.
@Suite("Geo queries: near, within radius, within box")
struct GeoQueryTests {
    static let oneDegree = Double.pi / 180

    static func seed(_ client: StackMobClient) async throws {
        let places: [JSONObject] = [
            ["place_id": "origin", "loc": ["lat": 0, "lon": 0]],
            ["place_id": "east1", "loc": ["lat": 0, "lon": 1]],
            ["place_id": "east2", "loc": ["lat": 0, "lon": 2]],
            ["place_id": "northeast", "loc": ["lat": 1, "lon": 1]],
            ["place_id": "far", "loc": ["lat": 10, "lon": 10]],
            ["place_id": "nowhere", "name": "no location"],
        ]
        for place in places { _ = try await client.create("place", place) }
    }

    static func ids(_ response: APIResponse) -> [String] {
        (response.array ?? []).compactMap { $0.objectValue?["place_id"]?.stringValue }
    }

    /// Each of `places` carries in `loc` its distance from 0,0 in radians: the n-th
    /// `degrees(n)` degrees away.
    static func expectDistances(_ places: [JSONObject], degrees: (Int) -> Double) {
        let distances = places.compactMap { $0["loc"]?.objectValue?["distance"]?.numberValue }
        #expect(distances.count == places.count)
        for (index, distance) in distances.enumerated() {
            #expect(abs(distance - degrees(index) * oneDegree) < 1e-12, "place \(index): \(distance)")
        }
    }

    @Test("near sorts by distance, ignores OrderBy, and embeds the distance in radians")
    func near() async throws {
        try await TestServer.run { client in
            try await Self.seed(client)
            let response = try await client.get("/place?loc[near]=0,0", headers: ["X-StackMob-OrderBy": "place_id:desc"])
            #expect(response.status == .ok)
            #expect(Self.ids(response) == ["origin", "east1", "northeast", "east2", "far"])
            let objects = try #require(response.array).compactMap(\.objectValue)
            let distances = objects.compactMap { $0["loc"]?.objectValue?["distance"]?.numberValue }
            #expect(distances.count == 5)
            #expect(distances[0] == 0)
            #expect(abs(distances[1] - Self.oneDegree) < 1e-12)
            #expect(abs(distances[3] - 2 * Self.oneDegree) < 1e-12)
            // 1°N 1°E from the origin: haversine gives 0.0246820… radians (computed independently in Python).
            #expect(abs(distances[2] - 0.024682056391766436) < 1e-12)
            // A plain read has no distance.
            #expect(try await client.get("/place/east1").object?["loc"] == ["lat": 0.0, "lon": 1.0])
        }
    }

    @Test("near with a maximum distance, combined with a Range and an OR group")
    func nearWithMaximum() async throws {
        try await TestServer.run { client in
            try await Self.seed(client)
            #expect(Self.ids(try await client.get("/place?loc[near]=0,0,0.02")) == ["origin", "east1"])
            let page = try await client.get("/place?loc[near]=0,0", headers: ["Range": "objects=1-2"])
            #expect(page.status == .partialContent)
            #expect(Self.ids(page) == ["east1", "northeast"])
            #expect(page.header("Content-Range") == "objects 1-2/5")
            let either = try await client.get("/place?loc[near]=0,0&[or1].place_id=far&[or1].place_id=east2")
            #expect(Self.ids(either) == ["east2", "far"])
        }
    }

    @Test("a near list longer than a batch is read and written a batch at a time, every object with its distance, in order")
    func nearInBatches() async throws {
        // 250 places on the equator, 0.01° apart: two and a half batches (`Datastore.queryBatchSize`).
        let count = 250
        #expect(count > 2 * Datastore.queryBatchSize)
        try await TestServer.run { client in
            for start in stride(from: 0, to: count, by: 100) {
                let places = (start..<min(start + 100, count)).map { index -> JSONValue in
                    ["place_id": .string(String(format: "p%03d", index)), "loc": ["lat": 0, "lon": .float(Double(index) / 100)]]
                }
                let created = try await client.post("/place", .array(places))
                #expect(created.status == .ok, "\(created.text.prefix(300))")
            }
            let all = try await client.get("/place?loc[near]=0,0")
            #expect(all.status == .ok)
            // Streamed as read: no length is known when the head is sent. Read whole, a near list
            // held every object of its window at once, however many.
            #expect(all.headers[.contentLength] == nil)
            let objects = try #require(all.array).compactMap(\.objectValue)
            #expect(objects.map { $0["place_id"]?.stringValue } == (0..<count).map { String(format: "p%03d", $0) })
            // Every object carries its distance, past the first batch too.
            Self.expectDistances(objects) { Double($0) / 100 }
            // A page past the first batch agrees with the list, distances and all.
            let page = try await client.get("/place?loc[near]=0,0", headers: ["Range": "objects=200-209"])
            #expect(page.status == .partialContent)
            #expect(page.headers[.contentRange] == "objects 200-209/\(count)")
            #expect(try #require(page.array).compactMap(\.objectValue) == Array(objects[200..<210]))
            // A near inside an OR group also matches objects without a point: they have no
            // distance, and come first (NULLs first, D18), on every engine and in every batch.
            for index in 0..<5 { _ = try await client.create("place", ["place_id": .string("z\(index)"), "name": "no location"]) }
            let either = try await client.get("/place?[or1].loc[near]=0,0&[or1].loc[null]=true")
            #expect(either.status == .ok, "\(either.text.prefix(300))")
            let mixed = try #require(either.array).compactMap(\.objectValue)
            #expect(mixed.map { $0["place_id"]?.stringValue } == (0..<5).map { "z\($0)" } + (0..<count).map { String(format: "p%03d", $0) })
            #expect(mixed.filter { $0["loc"]?.objectValue?["distance"] != nil }.count == count)
        }
    }

    @Test("a near page whose objects pass the first read's bytes is streamed, each object with its distance")
    func nearLargeObjects() async throws {
        // Twelve places of 600 KB: a page of ten passes `Datastore.batchBytes` at the seventh.
        let text = String(repeating: "x", count: 600_000)
        #expect(7 * text.utf8.count > Datastore.batchBytes && 6 * text.utf8.count < Datastore.batchBytes)
        try await TestServer.run { client in
            for index in 0..<12 {
                let place: JSONObject = ["place_id": .string("p\(index)"), "loc": ["lat": .float(Double(index)), "lon": 0], "text": .string(text)]
                #expect(try await client.post("/place", .object(place)).status == .created)
            }
            let page = try await client.get("/place?loc[near]=0,0", headers: ["Range": "objects=0-9"])
            #expect(page.status == .partialContent)
            #expect(page.headers[.contentLength] == nil)
            let places = try #require(page.array).compactMap(\.objectValue)
            #expect(places.map { $0["place_id"]?.stringValue } == (0..<10).map { "p\($0)" })
            Self.expectDistances(places) { Double($0) }
            // Without Range, the whole list: its first batch stops at the bytes too, and the rest
            // follows, each place given its distance from the point it holds.
            let all = try await client.get("/place?loc[near]=0,0")
            #expect(all.status == .ok && all.headers[.contentLength] == nil)
            let allPlaces = try #require(all.array).compactMap(\.objectValue)
            #expect(allPlaces.map { $0["place_id"]?.stringValue } == (0..<12).map { "p\($0)" })
            Self.expectDistances(allPlaces) { Double($0) }
        }
    }

    @Test("within a radius is inclusive at the boundary")
    func withinRadius() async throws {
        try await TestServer.run { client in
            try await Self.seed(client)
            let justOver = String(Self.oneDegree + 1e-12)
            let justUnder = String(Self.oneDegree - 1e-9)
            #expect(Set(Self.ids(try await client.get("/place?loc[within]=0,0,\(justOver)"))) == ["origin", "east1"])
            #expect(Self.ids(try await client.get("/place?loc[within]=0,0,\(justUnder)")) == ["origin"])
            // The Java SDK prints radians with Double.toString: scientific notation.
            #expect(Self.ids(try await client.get("/place?loc[within]=0,2,1.0E-4")) == ["east2"])
            // within honours OrderBy and adds no distance.
            let ordered = try await client.get("/place?loc[within]=0,0,0.03", headers: ["X-StackMob-OrderBy": "place_id:desc"])
            #expect(Self.ids(ordered) == ["origin", "northeast", "east1"])
            #expect(ordered.text.contains("distance") == false)
        }
    }

    @Test("within a box includes its corners and edges")
    func withinBox() async throws {
        try await TestServer.run { client in
            try await Self.seed(client)
            let response = try await client.get("/place?loc[within]=0,0,1,1", headers: ["X-StackMob-OrderBy": "place_id:asc"])
            #expect(Self.ids(response) == ["east1", "northeast", "origin"])
            #expect(Self.ids(try await client.get("/place?loc[within]=0.5,0.5,0.9,0.9")) == [])
            // A box across the antimeridian.
            _ = try await client.create("place", ["place_id": "fiji", "loc": ["lat": -17.7, "lon": 178.1]])
            _ = try await client.create("place", ["place_id": "samoa", "loc": ["lat": -13.8, "lon": -172.1]])
            let pacific = try await client.get("/place?loc[within]=-20,170,-10,-170", headers: ["X-StackMob-OrderBy": "place_id:asc"])
            #expect(Self.ids(pacific) == ["fiji", "samoa"])
        }
    }

    @Test("geo results stay right after updates and deletes (the index follows every write)")
    func indexFollowsWrites() async throws {
        try await TestServer.run { client in
            try await Self.seed(client)
            #expect(try await client.put("/place/far", ["loc": ["lat": 0.5, "lon": 0.5]]).status == .ok)
            #expect(try await client.put("/place/east1", ["loc": nil]).status == .ok)
            #expect(try await client.delete("/place/origin").status == .ok)
            #expect(Set(Self.ids(try await client.get("/place?loc[within]=0,0,1,1"))) == ["far", "northeast"])
            #expect(try await client.delete("/place?loc[within]=0,0,1,1").status == .ok)
            #expect(Set(Self.ids(try await client.get("/place"))) == ["east1", "east2", "nowhere"])
        }
    }

    @Test("malformed geo parameters are a 400 naming the parameter", arguments: [
        ("/place?loc[near]=0", "Malformed query parameter 'loc[near]': near takes lat,lon or lat,lon,maxDistanceInRadians"),
        ("/place?loc[within]=1,2", "Malformed query parameter 'loc[within]': within takes lat,lon,radiusInRadians or lat1,lon1,lat2,lon2"),
        ("/place?loc[near]=91,0", "Malformed query parameter 'loc[near]': latitude must be within -90…90 and longitude within -180…180"),
        ("/place?loc[near]=0,x", "Malformed query parameter 'loc[near]': 'x' is not a number"),
        ("/place?loc[within]=0,0,-1", "Malformed query parameter 'loc[within]': a distance cannot be negative"),
        ("/place?loc[within]=1,1,0,0", "Malformed query parameter 'loc[within]': the first corner must be the south-west one (latitude first)"),
        ("/place?name[near]=0,0", "Malformed query parameter 'name[near]': near and within apply to geopoint fields only"),
        ("/place?loc=0,0", "Query parameter 'loc': field loc cannot be queried"),
    ])
    func badGeo(path: String, message: String) async throws {
        try await TestServer.run { client in
            try await Self.seed(client)
            let response = try await client.get(path)
            #expect(response.status == .badRequest)
            #expect(response.error == message)
        }
    }

    @Test("a schema has one geopoint field")
    func oneGeopoint() async throws {
        try await TestServer.run { client in
            try await Self.seed(client)
            let response = try await client.post("/place", ["home": ["lat": 1, "lon": 2]])
            #expect(response.status == .badRequest)
            #expect(response.error == "home would be a second geopoint field: a schema has one geopoint field, here loc")
        }
    }
}
