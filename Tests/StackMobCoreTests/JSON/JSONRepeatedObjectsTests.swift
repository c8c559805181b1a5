@testable import StackMobCore
import Testing

/// `JSONRepeatedObjects` knows an object by its members' storage: the same object is
/// found, an equal one with storage of its own is not, and a slot taken by another object
/// forgets the first.
@Suite("JSONRepeatedObjects")
struct JSONRepeatedObjectsTests {
    @Test("the same object is found where it was written; an equal one of its own is not")
    func identity() {
        #expect(JSONRepeatedObjects.canIdentify)
        let object: JSONObject = ["a": 1, "b": "two"]
        let copy = object
        let equal: JSONObject = ["a": 1, "b": "two"]
        var table = JSONRepeatedObjects()
        #expect(table.written(JSONRepeatedObjects.storage(of: object)) == nil)
        table.record(JSONRepeatedObjects.storage(of: object), writtenAt: 10..<25)
        #expect(table.written(JSONRepeatedObjects.storage(of: copy)) == 10..<25)
        #expect(equal == object && table.written(JSONRepeatedObjects.storage(of: equal)) == nil)
    }

    @Test("of many objects, each is found where it was last recorded, or not at all")
    func manyObjects() {
        let objects: [JSONObject] = (0..<2_000).map { ["n": .integer(Int64($0))] }
        var table = JSONRepeatedObjects()
        for (n, object) in objects.enumerated() {
            table.record(JSONRepeatedObjects.storage(of: object), writtenAt: n..<(n + 1))
        }
        var found = 0
        for (n, object) in objects.enumerated() {
            guard let written = table.written(JSONRepeatedObjects.storage(of: object)) else { continue }
            #expect(written == n..<(n + 1))
            found += 1
        }
        // 256 slots: some hold the last of the objects that fell in them, none holds more.
        #expect(found > 0 && found <= 256)
    }
}
