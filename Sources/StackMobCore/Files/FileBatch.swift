/// The files one request stores, across every object it writes: one object, the elements of a
/// bulk create (§4.3), and the related objects of a nested upsert (§6.5).
public struct FileBatch: Sendable {
    struct Entry: Sendable {
        let schema: String
        let id: String
        let upload: BinaryFields.Upload
        /// The object as stored before the write; nil when the write creates it.
        let previous: JSONObject?
    }

    private(set) var entries: [Entry] = []

    public init() {}

    mutating func append(_ entry: Entry) {
        entries.append(entry)
    }

    public var isEmpty: Bool { entries.isEmpty }
}
