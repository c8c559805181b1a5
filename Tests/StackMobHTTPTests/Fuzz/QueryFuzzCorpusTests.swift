import StackMobFuzzInput
import StackMobCore
@testable import StackMobHTTP
import Testing

/// The FuzzQuery target's corpus and regressions (Fuzz/): each input, as a query string, is
/// split and decoded, parsed into a filter and typed against a schema, or throws the typed error.
@Suite("Query strings on the fuzz corpus")
struct QueryFuzzCorpusTests {
    /// As the fuzz target's: a field of every kind.
    static let schema = SchemaDefinition(name: "thing", fields: [
        "name": .string, "age": .integer, "score": .float, "done": .boolean, "location": .geopoint,
        "tags": .array(.string), "counts": .array(.integer), "secret": .password, "photo": .binary,
        "author": .relation(target: "user", toMany: false), "friends": .relation(target: "user", toMany: true),
    ])

    @Test("every input is a filter or throws RequestError or QueryError", arguments: FuzzInput.all(of: "FuzzQuery"))
    func replay(input: FuzzInput) {
        let parameters: [(key: String, value: String)]
        do {
            parameters = try QueryString.parameters(input.text)
        } catch {
            _ = error as RequestError
            return
        }
        do {
            guard let filter = try QueryParser.parse(parameters) else { return }
            _ = try QueryBinder.bind(filter, to: Self.schema)
        } catch {
            _ = error as QueryError
        }
    }
}
