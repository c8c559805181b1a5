/// Parses JSON text into `JSONValue`.
///
/// Our own parser rather than Foundation's because the datastore needs to know whether a number
/// was written as an integer (`18`) or not (`18.0`, `1e3`), and because client input must never
/// crash the server: nesting is bounded, and every failure is a `JSONParseError` with a position.
public struct JSONParser {
    public struct Options: Sendable {
        /// Deepest nesting of arrays and objects accepted.
        public var maxDepth: Int
        /// Accept `//` and `#` line comments: used for configuration files, never for requests.
        public var allowsComments: Bool
        /// Most values (each string, number, literal, array and object) in one text. A parsed
        /// value takes tens of bytes where its text may take two (`1,`): without a bound, a
        /// request body's parsed form could take ten times the memory of the body.
        public var maxValues: Int

        public init(maxDepth: Int = 64, allowsComments: Bool = false, maxValues: Int = .max) {
            self.maxDepth = maxDepth
            self.allowsComments = allowsComments
            self.maxValues = maxValues
        }

        /// What a request body may hold (docs/operations.md, "Limits").
        public static let requestBody = Options(maxValues: 200_000)
    }

    /// The text, read where its owner keeps it: only for the length of one `parse`.
    private let bytes: UnsafeBufferPointer<UInt8>
    private let options: Options
    private var index = 0
    private var depth = 0
    private var values = 0

    private init(bytes: UnsafeBufferPointer<UInt8>, options: Options) {
        self.bytes = bytes
        self.options = options
    }

    /// Parses bytes in place when the collection keeps them in one piece (an array, a stored
    /// column's buffer), else a copy of them. Copying every text into an array first was a large
    /// part of what reading back a stored array took (docs/benchmarks.md, "Figures behind design
    /// choices").
    public static func parse(_ bytes: some Collection<UInt8>, options: Options = .init()) throws(JSONParseError) -> JSONValue {
        try parseCountingValues(bytes, options: options).value
    }

    public static func parse(_ text: String, options: Options = .init()) throws(JSONParseError) -> JSONValue {
        try parse(text.utf8, options: options)
    }

    /// `parse(_:options:)`, with how many values the text held (each string, number, literal,
    /// array and object): the memory its parsed form takes beyond the text's own bytes is about
    /// that many times `bytesPerValue`.
    public static func parseCountingValues(_ bytes: some Collection<UInt8>, options: Options = .init()) throws(JSONParseError) -> (
        value: JSONValue, values: Int
    ) {
        let inPlace = bytes.withContiguousStorageIfAvailable { buffer in
            Result { () throws(JSONParseError) in try parse(buffer: buffer, options: options) }
        }
        if let inPlace { return try inPlace.get() }
        // An array is contiguous: this second call parses it in place.
        return try parseCountingValues(Array(bytes), options: options)
    }

    /// The most memory one parsed value takes beyond its text's bytes: its slot in an array
    /// (`MemoryLayout<JSONValue>.stride`, with the array's spare capacity) or an object (a
    /// `JSONObject.Member`), and what it allocates itself: an array's room for four, a string's
    /// storage once it is too long to be kept inline. Strings of sixteen bytes and arrays of one
    /// value come closest, at about 100 (`JSONParsedMemoryTests` weighs them on the heap).
    public static let bytesPerValue = 128

    private static func parse(buffer: UnsafeBufferPointer<UInt8>, options: Options) throws(JSONParseError) -> (value: JSONValue, values: Int) {
        var parser = JSONParser(bytes: buffer, options: options)
        parser.skipWhitespace()
        let value = try parser.parseValue()
        parser.skipWhitespace()
        guard parser.index == parser.bytes.count else {
            throw parser.error("unexpected text after the JSON value")
        }
        return (value, parser.values)
    }

    // MARK: - Values

    private mutating func parseValue() throws(JSONParseError) -> JSONValue {
        guard index < bytes.count else { throw error("unexpected end of input") }
        values += 1
        if values > options.maxValues { throw error("more than \(options.maxValues) values") }
        switch bytes[index] {
        case UInt8(ascii: "{"): return try parseObject()
        case UInt8(ascii: "["): return try parseArray()
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "t"): try expectLiteral("true"); return .bool(true)
        case UInt8(ascii: "f"): try expectLiteral("false"); return .bool(false)
        case UInt8(ascii: "n"): try expectLiteral("null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try parseNumber()
        default: throw error("unexpected character")
        }
    }

    /// The members are gathered first and made an object once: a name given twice keeps its
    /// last value, and a large object is sorted once rather than inserted into member by member.
    private mutating func parseObject() throws(JSONParseError) -> JSONValue {
        try enterContainer()
        index += 1
        var members: [(String, JSONValue)] = []
        skipWhitespace()
        if peek(UInt8(ascii: "}")) {
            index += 1
            depth -= 1
            return .object(JSONObject())
        }
        while true {
            skipWhitespace()
            guard peek(UInt8(ascii: "\"")) else { throw error("expected a string key") }
            let key = try parseString()
            skipWhitespace()
            guard peek(UInt8(ascii: ":")) else { throw error("expected ':'") }
            index += 1
            skipWhitespace()
            members.append((key, try parseValue()))
            skipWhitespace()
            if peek(UInt8(ascii: ",")) {
                index += 1
                continue
            }
            guard peek(UInt8(ascii: "}")) else { throw error("expected ',' or '}'") }
            index += 1
            depth -= 1
            return .object(JSONObject(lastValuesOf: members))
        }
    }

    private mutating func parseArray() throws(JSONParseError) -> JSONValue {
        try enterContainer()
        index += 1
        var array: [JSONValue] = []
        skipWhitespace()
        if peek(UInt8(ascii: "]")) {
            index += 1
            depth -= 1
            return .array(array)
        }
        // Arrays are mostly short lists (of ids, of tags): room for a few saves regrowing from one.
        array.reserveCapacity(4)
        while true {
            skipWhitespace()
            array.append(try parseValue())
            skipWhitespace()
            if peek(UInt8(ascii: ",")) {
                index += 1
                continue
            }
            guard peek(UInt8(ascii: "]")) else { throw error("expected ',' or ']'") }
            index += 1
            depth -= 1
            return .array(array)
        }
    }

    private mutating func enterContainer() throws(JSONParseError) {
        depth += 1
        if depth > options.maxDepth {
            throw error("nesting deeper than \(options.maxDepth) levels")
        }
    }

    private mutating func expectLiteral(_ literal: StaticString) throws(JSONParseError) {
        let count = literal.utf8CodeUnitCount
        guard index + count <= bytes.count else { throw error("unexpected end of input") }
        let matches = literal.withUTF8Buffer { expected in
            expected.elementsEqual(bytes[index..<index + count])
        }
        guard matches else { throw error("unexpected character") }
        index += count
    }

    // MARK: - Numbers

    private mutating func parseNumber() throws(JSONParseError) -> JSONValue {
        let start = index
        var isInteger = true
        if peek(UInt8(ascii: "-")) { index += 1 }
        guard index < bytes.count, isDigit(bytes[index]) else { throw error("invalid number") }
        if bytes[index] == UInt8(ascii: "0") {
            index += 1
        } else {
            while index < bytes.count, isDigit(bytes[index]) { index += 1 }
        }
        if peek(UInt8(ascii: ".")) {
            isInteger = false
            index += 1
            guard index < bytes.count, isDigit(bytes[index]) else { throw error("invalid number") }
            while index < bytes.count, isDigit(bytes[index]) { index += 1 }
        }
        if peek(UInt8(ascii: "e")) || peek(UInt8(ascii: "E")) {
            isInteger = false
            index += 1
            if peek(UInt8(ascii: "+")) || peek(UInt8(ascii: "-")) { index += 1 }
            guard index < bytes.count, isDigit(bytes[index]) else { throw error("invalid number") }
            while index < bytes.count, isDigit(bytes[index]) { index += 1 }
        }
        let text = String(decoding: bytes[start..<index], as: UTF8.self)
        if isInteger, let integer = Int64(text) {
            return .integer(integer)
        }
        // Integers beyond 64 bits degrade to doubles, as in JavaScript clients.
        guard let double = Double(text), double.isFinite else { throw error("number out of range") }
        return .float(double)
    }

    private func isDigit(_ byte: UInt8) -> Bool {
        byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")
    }

    // MARK: - Strings

    private mutating func parseString() throws(JSONParseError) -> String {
        index += 1  // opening quote
        let start = index
        // Nearly every string has no escape, and most are ASCII: such a string is made from its
        // bytes where they lie, with no check of its UTF-8 left to make. Gathering the bytes into
        // an array and validating them through the generic `String(validating:)` was a large part
        // of what reading back a stored array took (docs/benchmarks.md, "Figures behind design
        // choices").
        var allBits: UInt8 = 0
        index = plainRun(from: index, allBits: &allBits)
        if index < bytes.count, bytes[index] == UInt8(ascii: "\"") {
            index += 1
            let content = UnsafeBufferPointer(rebasing: bytes[start..<index - 1])
            let string = allBits < 0x80 ? String(decoding: content, as: UTF8.self) : String(validating: content, as: UTF8.self)
            guard let string else { throw error("string is not valid UTF-8") }
            return string
        }
        // An escape, a control character or the end of the input: the runs between escapes are
        // copied whole. A binary field's envelope is such a string, a megabyte or more of base64
        // after the escaped line breaks of its headers (PROTOCOL §7), with `\/` for every `/`
        // when the client's encoder escapes slashes.
        var scalars: [UInt8] = []
        scalars.append(contentsOf: bytes[start..<index])
        while true {
            guard index < bytes.count else { throw error("unterminated string") }
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                index += 1
                break
            }
            if byte < 0x20 { throw error("control character in string") }
            index += 1  // a backslash
            try appendEscape(to: &scalars)
            let segmentStart = index
            index = plainRun(from: index, allBits: &allBits)
            scalars.append(contentsOf: bytes[segmentStart..<index])
        }
        guard let string = String(validating: scalars, as: UTF8.self) else {
            throw error("string is not valid UTF-8")
        }
        return string
    }

    /// The index of the first quote, backslash or control character from `position` on (the
    /// input's end when there is none); `allBits` gets the high bit when a byte before it has
    /// one. Eight bytes at a time while a word holds none of those, as the writer's escape scan.
    private func plainRun(from position: Int, allBits: inout UInt8) -> Int {
        var position = position
        var bits: UInt64 = 0
        if let base = bytes.baseAddress {
            let raw = UnsafeRawPointer(base)
            while position + 8 <= bytes.count {
                let word = raw.loadUnaligned(fromByteOffset: position, as: UInt64.self)
                if JSONEscapable.contains(inWord: word) { break }
                bits |= word
                position += 8
            }
        }
        while position < bytes.count, !JSONEscapable.contains(bytes[position]) {
            bits |= UInt64(bytes[position])
            position += 1
        }
        if bits & 0x8080_8080_8080_8080 != 0 { allBits |= 0x80 }
        return position
    }

    private mutating func appendEscape(to output: inout [UInt8]) throws(JSONParseError) {
        guard index < bytes.count else { throw error("unterminated string") }
        let escape = bytes[index]
        index += 1
        switch escape {
        case UInt8(ascii: "\""): output.append(UInt8(ascii: "\""))
        case UInt8(ascii: "\\"): output.append(UInt8(ascii: "\\"))
        case UInt8(ascii: "/"): output.append(UInt8(ascii: "/"))
        case UInt8(ascii: "b"): output.append(0x08)
        case UInt8(ascii: "f"): output.append(0x0C)
        case UInt8(ascii: "n"): output.append(0x0A)
        case UInt8(ascii: "r"): output.append(0x0D)
        case UInt8(ascii: "t"): output.append(0x09)
        case UInt8(ascii: "u"):
            var scalar = try readHexQuad()
            if (0xD800...0xDBFF).contains(scalar) {
                // A high surrogate must be followed by an escaped low surrogate.
                guard index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u")
                else { throw error("unpaired surrogate in string") }
                index += 2
                let low = try readHexQuad()
                guard (0xDC00...0xDFFF).contains(low) else { throw error("unpaired surrogate in string") }
                scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
            } else if (0xDC00...0xDFFF).contains(scalar) {
                throw error("unpaired surrogate in string")
            }
            guard let unicode = Unicode.Scalar(scalar) else { throw error("invalid unicode escape") }
            output.append(contentsOf: Array(String(Character(unicode)).utf8))
        default:
            throw error("invalid escape sequence")
        }
    }

    private mutating func readHexQuad() throws(JSONParseError) -> UInt32 {
        guard index + 4 <= bytes.count else { throw error("invalid unicode escape") }
        var value: UInt32 = 0
        for byte in bytes[index..<index + 4] {
            let digit: UInt32
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = UInt32(byte - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = UInt32(byte - UInt8(ascii: "a") + 10)
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = UInt32(byte - UInt8(ascii: "A") + 10)
            default: throw error("invalid unicode escape")
            }
            value = value << 4 | digit
        }
        index += 4
        return value
    }

    // MARK: - Whitespace and errors

    private mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\n"), UInt8(ascii: "\r"):
                index += 1
            case UInt8(ascii: "#") where options.allowsComments:
                skipLine()
            case UInt8(ascii: "/") where options.allowsComments && index + 1 < bytes.count && bytes[index + 1] == UInt8(ascii: "/"):
                skipLine()
            default:
                return
            }
        }
    }

    private mutating func skipLine() {
        while index < bytes.count, bytes[index] != UInt8(ascii: "\n") { index += 1 }
    }

    private func peek(_ byte: UInt8) -> Bool {
        index < bytes.count && bytes[index] == byte
    }

    private func error(_ reason: String) -> JSONParseError {
        var line = 1
        var column = 1
        for byte in bytes[..<min(index, bytes.count)] {
            if byte == UInt8(ascii: "\n") {
                line += 1
                column = 1
            } else {
                column += 1
            }
        }
        return JSONParseError(reason: reason, line: line, column: column)
    }
}

/// Why a JSON text could not be parsed; safe to show to a client.
public struct JSONParseError: Error, Sendable, Equatable, CustomStringConvertible {
    public let reason: String
    public let line: Int
    public let column: Int

    public var description: String { "\(reason) at line \(line), column \(column)" }
}
