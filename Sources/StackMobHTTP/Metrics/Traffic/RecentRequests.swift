/// The last requests of one environment, newest last, in a ring of fixed size: what the console's
/// request list searches. Nothing secret is kept: the path without its query string (push
/// device tokens replaced, `PushTokenPath`), never a header or a body.
struct RecentRequests: Sendable {
    struct Entry: Sendable, Equatable {
        /// Milliseconds since the epoch.
        let at: Int64
        let method: String
        /// The route's template (`/todo/{id}`), or the area a middleware answered for.
        let route: String
        let path: String
        let status: Int
        let microseconds: Int64
        /// `<schema>/<id>` of a signed-in user; nil for anyone else.
        let user: String?
        let requestID: String
    }

    /// What the list is narrowed to; nil = any.
    struct Filter: Sendable {
        var statusClass: Int?
        var pathPrefix: String?
        var user: String?
        var since: Int64?
        var until: Int64?

        func admits(_ entry: Entry) -> Bool {
            if let statusClass, entry.status / 100 != statusClass { return false }
            if let pathPrefix, !entry.path.hasPrefix(pathPrefix) { return false }
            if let user, entry.user != user { return false }
            if let since, entry.at < since { return false }
            if let until, entry.at > until { return false }
            return true
        }
    }

    let capacity: Int
    private var entries: [Entry] = []
    /// Where the next entry goes once the ring is full.
    private var next = 0

    init(capacity: Int) {
        self.capacity = capacity
        entries.reserveCapacity(capacity)
    }

    mutating func append(_ entry: Entry) {
        if entries.count < capacity {
            entries.append(entry)
        } else {
            entries[next] = entry
            next = (next + 1) % capacity
        }
    }

    /// The newest `limit` entries the filter admits, newest first.
    func newest(_ limit: Int, matching filter: Filter) -> [Entry] {
        var found: [Entry] = []
        let count = entries.count
        var index = 0
        while index < count, found.count < limit {
            // Newest first: the entry just before `next`, going back round the ring.
            let position = ((count < capacity ? count : next) - 1 - index + count) % count
            let entry = entries[position]
            if filter.admits(entry) { found.append(entry) }
            index += 1
        }
        return found
    }
}
