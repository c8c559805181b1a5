import StackMobFuzzInput
import StackMobCore
import Testing

/// The FuzzQueryHeaders target's corpus and regressions (Fuzz/): each input, as the value of
/// X-StackMob-OrderBy, -Select, -Expand, -Relations and -FieldTypes, parses or throws the typed error.
@Suite("Query headers on the fuzz corpus")
struct QueryHeadersFuzzCorpusTests {
    @Test("every input parses or throws QueryError or RelationError", arguments: FuzzInput.all(of: "FuzzQueryHeaders"))
    func replay(input: FuzzInput) {
        let header = input.text
        do { _ = try QueryRequest.parseOrderBy(header) } catch { _ = error as QueryError }
        do { _ = try QueryRequest.parseSelect(header) } catch { _ = error as QueryError }
        do { _ = try QueryRequest.parseExpand(header) } catch { _ = error as QueryError }
        do { _ = try RelationMap.parse(header) } catch { _ = error as RelationError }
        _ = FieldTypesHeader.parse(header)
    }
}
