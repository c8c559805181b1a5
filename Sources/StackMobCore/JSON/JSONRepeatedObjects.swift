/// Where in the output each object of the value being written was written, by the object's
/// storage: an object that recurs in the value is written once and its bytes copied after.
///
/// An expanded page holds the same related object many times (the same tags, and their owners,
/// under many objects). `RelationLoader` hands out one object per related object and depth, so
/// every occurrence shares its storage; writing them once each is most of what serialising an
/// expanded page saves (docs/benchmarks.md, "Figures behind design choices").
///
/// An object is known by the address of its members' storage, read from the object's one
/// word. Two values with the same storage are the same value, so the bytes copied are the bytes
/// writing it again would give. The value being written holds every storage it contains for as
/// long as the writing lasts, so no address is freed and reused in between. Equal objects with
/// storage of their own are simply written again.
///
/// A table of 256 slots chosen by the address; a slot holds the last object that fell in it.
/// Forgetting an object costs its bytes written again, never wrong bytes, and each look-up is a
/// multiplication and a comparison where a `Dictionary` hashed with SipHash. The table is made
/// when the first object is recorded, and a bit per slot says which slots hold one, so a
/// response with no nested object pays nothing and one with a few clears no memory.
struct JSONRepeatedObjects: ~Copyable {
    private struct Slot {
        var storage: UInt
        var start: Int
        var end: Int
    }

    private static let slotBits = 8
    private static let slotCount = 1 << slotBits
    /// Whether an object is one word, its storage's address: true of `JSONObject`, which holds
    /// one `ContiguousArray`, everywhere Swift runs, but checked rather than assumed. Computed,
    /// so that it folds to a constant (a stored `static let` is checked for initialisation at
    /// every use).
    static var canIdentify: Bool { MemoryLayout<JSONObject>.size == MemoryLayout<UInt>.size }
    /// Objects smaller than this are written again rather than looked up. What recurs is a
    /// related object, which has at least its id and two dates; a smaller object is a value
    /// inside one (a geopoint), and costs little to write.
    static var smallestLookedUp: Int { 3 }

    /// Made at the first record: uninitialised but for the slots `occupied` marks.
    private var slots: UnsafeMutablePointer<Slot>?
    /// A bit per slot, set once the slot holds an object.
    private var occupied: UnsafeMutablePointer<UInt64>?

    init() {}

    deinit {
        slots?.deallocate()
        occupied?.deallocate()
    }

    static func storage(of object: JSONObject) -> UInt {
        withUnsafeBytes(of: object) { $0.load(as: UInt.self) }
    }

    /// The bytes `storage`'s object was written as, if this table still knows.
    func written(_ storage: UInt) -> Range<Int>? {
        guard let slots, let occupied else { return nil }
        let index = Self.slot(of: storage)
        guard occupied[index / 64] & (1 << (index % 64)) != 0, slots[index].storage == storage else { return nil }
        return slots[index].start..<slots[index].end
    }

    mutating func record(_ storage: UInt, writtenAt bytes: Range<Int>) {
        if slots == nil {
            slots = .allocate(capacity: Self.slotCount)
            occupied = .allocate(capacity: Self.slotCount / 64)
            occupied?.initialize(repeating: 0, count: Self.slotCount / 64)
        }
        guard let slots, let occupied else { return }
        let index = Self.slot(of: storage)
        (slots + index).initialize(to: Slot(storage: storage, start: bytes.lowerBound, end: bytes.upperBound))
        occupied[index / 64] |= 1 << (index % 64)
    }

    /// The address's bits above the allocator's alignment, mixed by a Fibonacci multiplication.
    private static func slot(of storage: UInt) -> Int {
        Int(truncatingIfNeeded: (storage &* 0x9E37_79B9_7F4A_7C15) >> (UInt.bitWidth - slotBits))
    }
}
