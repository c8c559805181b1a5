import StackMobCore
import Testing

@Suite("The order a page is read in")
struct PageOrderTests {
    private func order(_ keys: [SortKey]) -> [String] {
        PageOrder.keys(keys, primaryKey: "item_id").map { "\($0.field) \($0.ascending ? "asc" : "desc")" }
    }

    @Test("without keys: newest first, ties by primary key ascending (PROTOCOL D18)")
    func defaultOrder() {
        #expect(order([]) == ["createddate desc", "item_id asc"])
    }

    @Test("ties run in the direction of the last key, as a field index read either way holds them")
    func tiesFollowTheLastKey() {
        #expect(order([SortKey(field: "price", ascending: true)]) == ["price asc", "item_id asc"])
        #expect(order([SortKey(field: "price", ascending: false)]) == ["price desc", "item_id desc"])
        #expect(order([SortKey(field: "price", ascending: true), SortKey(field: "name", ascending: false)]) == ["price asc", "name desc", "item_id desc"])
    }

    @Test("after createddate the ties run the other way, as the newest-first index holds them")
    func createdDate() {
        #expect(order([SortKey(field: "createddate", ascending: false)]) == ["createddate desc", "item_id asc"])
        #expect(order([SortKey(field: "createddate", ascending: true)]) == ["createddate asc", "item_id desc"])
    }

    @Test("an order that has the primary key has no ties to break")
    func primaryKeyAsked() {
        #expect(order([SortKey(field: "item_id", ascending: false), SortKey(field: "price", ascending: true)]) == ["item_id desc", "price asc"])
    }

    @Test("an index is its fields, then the primary key unless they hold it")
    func indexColumns() {
        #expect(IndexPlan.columns(["category", "price"], primaryKey: "item_id") == ["category", "price", "item_id"])
        #expect(IndexPlan.columns(["item_id", "price"], primaryKey: "item_id") == ["item_id", "price"])
    }
}
