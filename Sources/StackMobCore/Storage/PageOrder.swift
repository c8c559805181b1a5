/// The order a page is read in: the keys asked for (`X-StackMob-OrderBy`) or the default order
/// (newest first, PROTOCOL D18), then the primary key, so that ties have one order and pages
/// never overlap or skip objects.
///
/// The primary key sorts ties in the direction the index of the last key holds it, so that a page
/// reads 20 index entries in order and stops, where a sort of each run of equal values would read
/// the whole run first (docs/benchmarks.md, "Figures behind design choices"). Field indexes end
/// with the primary key ascending (`IndexPlan.columns`): read forwards they give an ascending key
/// with ties ascending, read backwards a descending key with ties descending. The newest-first
/// index (`NewestFirstIndex`) holds `createddate` descending and the key ascending, the default
/// order: after `createddate` the ties run the other way.
public enum PageOrder {
    public static func keys(_ asked: [SortKey], primaryKey: String) -> [SortKey] {
        let keys = asked.isEmpty ? [SortKey(field: SchemaDefinition.createdDate, ascending: false)] : asked
        guard let last = keys.last, !keys.contains(where: { $0.field == primaryKey }) else { return keys }
        let tiesAscending = last.field == SchemaDefinition.createdDate ? !last.ascending : last.ascending
        return keys + [SortKey(field: primaryKey, ascending: tiesAscending)]
    }
}
