/// A JSON object: its members kept in the byte order of their keys, each key once.
///
/// Written in that order (PROTOCOL §1.4), so a response's objects need no sorting. Keys are found
/// by a binary search that compares the keys' first eight bytes as one integer, where a
/// `[String: JSONValue]` hashed every key with SipHash, a large share of an expanded page's
/// instructions, and its objects' storage was a hash table each (docs/benchmarks.md, "Figures
/// behind design choices").
///
/// Keys are compared byte for byte, as JSON names are (RFC 8259 §8.3): two spellings of the same
/// accented letter are two keys, where a `Dictionary` of `String` took them for one.
///
/// Its API is the part of `Dictionary`'s the server uses, with the same meaning, so that code
/// reads as it did when an object was a dictionary.
public struct JSONObject: Sendable, Hashable {
    public typealias Element = (key: String, value: JSONValue)

    /// A member, with its key's first bytes as a number, so that most comparisons of two keys
    /// are one integer comparison.
    struct Member: Sendable, Hashable {
        let prefix: UInt64
        let key: String
        var value: JSONValue

        init(key: String, prefix: UInt64? = nil, value: JSONValue) {
            self.prefix = prefix ?? JSONObject.prefix(of: key)
            self.key = key
            self.value = value
        }
    }

    /// In ascending byte order of `key`, no key twice. One word: `JSONRepeatedObjects` knows
    /// an object by the address of this storage.
    private(set) var members: ContiguousArray<Member>

    public init() {
        members = []
    }

    public init(minimumCapacity: Int) {
        members = []
        members.reserveCapacity(minimumCapacity)
    }

    /// The members of `keysAndValues`; of a key given twice, the last value, as a parsed JSON
    /// text's duplicate names are read. Sorted once, so that a large object costs n log n,
    /// not the n² of inserting members one by one in the middle.
    public init<S: Sequence>(lastValuesOf keysAndValues: S) where S.Element == (String, JSONValue) {
        var numbered = keysAndValues.enumerated().map { (position: $0.offset, member: Member(key: $0.element.0, value: $0.element.1)) }
        if !Self.isStrictlyAscending(numbered.lazy.map(\.member)) {
            numbered.sort { left, right in
                let order = Self.order(left.member.key, left.member.prefix, right.member)
                return order != 0 ? order < 0 : left.position < right.position
            }
        }
        members = []
        members.reserveCapacity(numbered.count)
        for (_, member) in numbered {
            if let last = members.last, Self.order(member.key, member.prefix, last) == 0 {
                members[members.count - 1] = member
            } else {
                members.append(member)
            }
        }
    }

    /// The members of a dictionary.
    public init(_ dictionary: [String: JSONValue]) {
        self.init(lastValuesOf: dictionary.lazy.map { ($0.key, $0.value) })
    }

    /// As `Dictionary(uniqueKeysWithValues:)`, but a key given twice keeps its last value
    /// rather than stopping the server.
    public init<S: Sequence>(uniqueKeysWithValues keysAndValues: S) where S.Element == (String, JSONValue) {
        self.init(lastValuesOf: keysAndValues)
    }

    public var count: Int { members.count }
    public var isEmpty: Bool { members.isEmpty }

    public var keys: LazyMapCollection<JSONObject, String> { lazy.map(\.key) }
    public var values: LazyMapCollection<JSONObject, JSONValue> { lazy.map(\.value) }

    public subscript(key: String) -> JSONValue? {
        get {
            guard let index = index(forKey: key) else { return nil }
            return members[index].value
        }
        set {
            if let newValue {
                updateValue(newValue, forKey: key)
            } else {
                removeValue(forKey: key)
            }
        }
    }

    /// The position of `key`'s member, if it has one.
    public func index(forKey key: String) -> Int? {
        let (index, found) = position(of: key, prefix: Self.prefix(of: key))
        return found ? index : nil
    }

    /// A key read once for many objects (a statement's columns): its first bytes are taken once.
    /// Keys compare as they are kept, byte by byte.
    public struct PreparedKey: Sendable, Comparable {
        public let name: String
        let prefix: UInt64

        public init(_ name: String) {
            self.name = name
            prefix = JSONObject.prefix(of: name)
        }

        public static func < (left: PreparedKey, right: PreparedKey) -> Bool {
            JSONObject.order(left.name, left.prefix, right.name, right.prefix) < 0
        }

        public static func == (left: PreparedKey, right: PreparedKey) -> Bool {
            JSONObject.order(left.name, left.prefix, right.name, right.prefix) == 0
        }
    }

    /// Sets `key`'s value; returns the value it replaced. A key after every other key is
    /// appended with one comparison: members copied from another object, or a row's columns
    /// taken in key order, come that way.
    @discardableResult
    public mutating func updateValue(_ value: consuming JSONValue, forKey key: String) -> JSONValue? {
        updateValue(value, forKey: key, prefix: Self.prefix(of: key))
    }

    @discardableResult
    public mutating func updateValue(_ value: consuming JSONValue, forKey key: PreparedKey) -> JSONValue? {
        updateValue(value, forKey: key.name, prefix: key.prefix)
    }

    /// Appends `key`'s member, `key` coming after every key the object has: a statement's columns,
    /// read in the order of their names, where `updateValue` looked for each key's place for every
    /// value (docs/benchmarks.md, "Figures behind design choices").
    public mutating func append(_ value: consuming JSONValue, forKeyAfterAll key: PreparedKey) {
        // The last key's first bytes settle it but for keys that share them; `members.last`
        // would copy the whole member, a retain and a release of its key and value.
        if let last = members.indices.last, members[last].prefix >= key.prefix {
            precondition(Self.order(key.name, key.prefix, members[last]) > 0, "a key out of order")
        }
        members.append(Member(key: key.name, prefix: key.prefix, value: value))
    }

    /// `value` is taken, not copied: a decoder hands over each value it made (each value had been
    /// retained here and released by the decoder; docs/benchmarks.md, "Figures behind design
    /// choices").
    private mutating func updateValue(_ value: consuming JSONValue, forKey key: String, prefix: UInt64) -> JSONValue? {
        let (index, found) = position(of: key, prefix: prefix)
        if found {
            let old = members[index].value
            members[index].value = value
            return old
        }
        // `insert(_:at:)` goes through the generic `replaceSubrange` even at the end.
        if index == members.count {
            members.append(Member(key: key, prefix: prefix, value: value))
        } else {
            members.insert(Member(key: key, prefix: prefix, value: value), at: index)
        }
        return nil
    }

    @discardableResult
    public mutating func removeValue(forKey key: String) -> JSONValue? {
        guard let index = index(forKey: key) else { return nil }
        return members.remove(at: index).value
    }

    public mutating func removeAll() {
        members.removeAll()
    }

    public func mapValues(_ transform: (JSONValue) throws -> JSONValue) rethrows -> JSONObject {
        var result = self
        for index in result.members.indices {
            result.members[index].value = try transform(result.members[index].value)
        }
        return result
    }

    /// The values `transform` gives other than nil, by key, as `Dictionary.compactMapValues`.
    public func compactMapValues<T>(_ transform: (JSONValue) throws -> T?) rethrows -> [String: T] {
        var result: [String: T] = [:]
        for member in members {
            if let value = try transform(member.value) { result[member.key] = value }
        }
        return result
    }

    /// The members `isIncluded` keeps, as an object (as `Dictionary.filter` does).
    public func filter(_ isIncluded: (Element) throws -> Bool) rethrows -> JSONObject {
        var result = JSONObject()
        result.members = try members.filter { try isIncluded(($0.key, $0.value)) }
        return result
    }

    /// `other`'s members added; for a key in both, `combine` of the two values.
    public mutating func merge(_ other: JSONObject, uniquingKeysWith combine: (JSONValue, JSONValue) throws -> JSONValue) rethrows {
        for member in other.members {
            if let index = index(forKey: member.key) {
                members[index].value = try combine(members[index].value, member.value)
            } else {
                updateValue(member.value, forKey: member.key)
            }
        }
    }

    public func merging(_ other: JSONObject, uniquingKeysWith combine: (JSONValue, JSONValue) throws -> JSONValue) rethrows -> JSONObject {
        var result = self
        try result.merge(other, uniquingKeysWith: combine)
        return result
    }

    // MARK: Order

    /// Where `key` is, or would be inserted, and whether it is there. The last member is tried
    /// first, since objects are mostly built in key order.
    private func position(of key: String, prefix: UInt64) -> (index: Int, found: Bool) {
        guard let last = members.last else { return (0, false) }
        let afterLast = Self.order(key, prefix, last)
        if afterLast >= 0 { return afterLast == 0 ? (members.count - 1, true) : (members.count, false) }
        var low = 0
        var high = members.count - 1
        while low < high {
            let middle = (low + high) / 2
            let order = Self.order(key, prefix, members[middle])
            if order == 0 { return (middle, true) }
            if order < 0 { high = middle } else { low = middle + 1 }
        }
        return (low, false)
    }

    /// Negative, zero or positive as `key` is before, the same as, or after `member`'s key.
    static func order(_ key: String, _ prefix: UInt64, _ member: Member) -> Int {
        order(key, prefix, member.key, member.prefix)
    }

    /// Negative, zero or positive as `key` (whose first bytes are `prefix`) is before, the same
    /// as, or after `other`, byte by byte.
    static func order(_ key: String, _ prefix: UInt64, _ other: String, _ otherPrefix: UInt64) -> Int {
        if prefix != otherPrefix { return prefix < otherPrefix ? -1 : 1 }
        // The first eight bytes are equal, or a key ended within them (zero-padded): the rest is
        // read only where both go on.
        let leftCount = key.utf8.count
        let rightCount = other.utf8.count
        if Swift.min(leftCount, rightCount) > 8 {
            let left = key.utf8.span
            let right = other.utf8.span
            for position in 8..<Swift.min(leftCount, rightCount) where left[position] != right[position] {
                return left[position] < right[position] ? -1 : 1
            }
        }
        return leftCount - rightCount
    }

    /// The key's first eight bytes, big-endian, zero-padded.
    static func prefix(of key: String) -> UInt64 {
        key.utf8.span.withUnsafeBufferPointer { bytes in
            var word: UInt64 = 0
            withUnsafeMutableBytes(of: &word) { $0.copyMemory(from: UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(bytes).prefix(8))) }
            return UInt64(bigEndian: word)
        }
    }

    private static func isStrictlyAscending<C: Collection>(_ members: C) -> Bool where C.Element == Member {
        var previous: Member?
        for member in members {
            if let previous, order(previous.key, previous.prefix, member) >= 0 { return false }
            previous = member
        }
        return true
    }
}

extension JSONObject: RandomAccessCollection {
    public var startIndex: Int { 0 }
    public var endIndex: Int { members.count }
    public subscript(position: Int) -> Element { (members[position].key, members[position].value) }
}

extension JSONObject: ExpressibleByDictionaryLiteral {
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        self.init(lastValuesOf: elements)
    }
}

extension JSONObject: CustomStringConvertible {
    public var description: String {
        guard !isEmpty else { return "[:]" }
        return "[" + members.map { "\(String(reflecting: $0.key)): \($0.value)" }.joined(separator: ", ") + "]"
    }
}
