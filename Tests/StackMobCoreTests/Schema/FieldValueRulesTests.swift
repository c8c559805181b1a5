@testable import StackMobCore
import Testing

@Suite("Field types: inference and conformance")
struct FieldValueRulesTests {
    static let inferences: [(JSONValue, FieldValueRules.Inference)] = [
        (JSONValue.string("x"), FieldValueRules.Inference.type(.string)),
        (.integer(1), .type(.integer)),
        (.float(1.5), .type(.float)),
        (.bool(true), .type(.boolean)),
        ([], .type(.array(.string))),
        (["a"], .type(.array(.string))),
        ([1, 2], .type(.array(.integer))),
        ([1, 2.5], .type(.array(.float))),
        ([true], .type(.array(.boolean))),
        (["a", 1], .mixedArray),
        ([[1]], .mixedArray),
        (["lat": 1, "lon": 2.5], .type(.geopoint)),
        (["lat": 1], .subObject),
        (["lat": 1, "lon": 2, "alt": 3], .subObject),
        (["lat": "1", "lon": 2], .subObject),
        (nil, .noType),
    ]

    @Test("inference from a first value", arguments: inferences)
    func inference(value: JSONValue, expected: FieldValueRules.Inference) {
        #expect(FieldValueRules.infer(value) == expected)
    }

    @Test("an integer fits a float field, and is stored as a float")
    func integerIntoFloat() {
        #expect(FieldValueRules.conform(3, to: .float) == .float(3))
        #expect(FieldValueRules.conform([1, 2], to: .array(.float)) == [1.0, 2.0])
        #expect(FieldValueRules.conform(3.5, to: .integer) == nil)
    }

    @Test("geopoints are range-checked")
    func geopoints() {
        #expect(FieldValueRules.conform(["lat": 90, "lon": -180], to: .geopoint) == ["lat": 90.0, "lon": -180.0])
        #expect(FieldValueRules.conform(["lat": 90.5, "lon": 0], to: .geopoint) == nil)
        #expect(FieldValueRules.conform(["lat": 0, "lon": 181], to: .geopoint) == nil)
    }

    @Test("type names round-trip through the registry form", arguments: [
        FieldType.string, .integer, .float, .boolean, .geopoint, .password,
        .array(.string), .array(.integer), .array(.float), .array(.boolean),
    ])
    func typeNames(type: FieldType) {
        #expect(FieldType(name: type.name) == type)
    }

    @Test("identifiers")
    func identifiers() {
        #expect(Identifier.isValidSchemaName("todo_2"))
        #expect(!Identifier.isValidSchemaName("2todo"))
        #expect(!Identifier.isValidSchemaName("_sm_schemas"))
        #expect(!Identifier.isValidSchemaName("Todo"))
        #expect(Identifier.isValidFieldName("_private"))
        #expect(!Identifier.isValidFieldName("a b"))
        #expect(!Identifier.isValidFieldName("likes[inc]"))
        #expect(!Identifier.isValidFieldName(String(repeating: "a", count: 65)))
        #expect(Identifier.isValidFieldName(String(repeating: "a", count: 64)))
        #expect(!Identifier.isValidFieldName("\"; DROP TABLE x; --"))
    }
}
