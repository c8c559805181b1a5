/// The rows of a schema a caller may see, as a storage engine must add it to a statement's
/// `WHERE` (bound values only). Built by `Datastore.authorize` from a row rule, the caller and the
/// schema definitions; compiled by the storage engine.
public indirect enum RowFilter: Sendable, Equatable {
    /// No row (e.g. a relationship field that does not exist yet).
    case nothing
    /// `sm_owner` equals the value (`"<userSchema>/<id>"`, D15).
    case ownerIs(String)
    /// The primary key column `field` equals the value (a user object owns itself).
    case primaryKeyIs(field: String, value: String)
    /// The relationship column `field` holds `id`: equality for one-to-one, an element of the
    /// stored JSON array for one-to-many.
    case relationContains(field: String, toMany: Bool, id: String)
    /// `sm_owner` is `"<userSchema>/<pk>"` of a row of `userSchema` that `matching` admits.
    case ownerAmong(userSchema: String, primaryKey: String, matching: RowFilter)
    /// Any of the filters.
    case any([RowFilter])
}
