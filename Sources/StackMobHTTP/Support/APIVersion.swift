/// The API version a request asks for, from `Accept: application/vnd.stackmob+json; version=N`
/// (PROTOCOL §2.5): `version\s*=\s*(\d+)` anywhere in the header, since jQuery may merge several
/// values into one; none means 0 (D34).
enum APIVersion {
    static func parse(accept: String?) -> Int {
        guard let accept else { return 0 }
        let bytes = Array(accept.utf8)
        let keyword = Array("version".utf8)
        var index = 0
        while index + keyword.count <= bytes.count {
            defer { index += 1 }
            guard bytes[index..<index + keyword.count].elementsEqual(keyword) else { continue }
            var cursor = index + keyword.count
            while cursor < bytes.count, bytes[cursor] == UInt8(ascii: " ") || bytes[cursor] == UInt8(ascii: "\t") { cursor += 1 }
            guard cursor < bytes.count, bytes[cursor] == UInt8(ascii: "=") else { continue }
            cursor += 1
            while cursor < bytes.count, bytes[cursor] == UInt8(ascii: " ") || bytes[cursor] == UInt8(ascii: "\t") { cursor += 1 }
            let start = cursor
            while cursor < bytes.count, bytes[cursor] >= UInt8(ascii: "0"), bytes[cursor] <= UInt8(ascii: "9") { cursor += 1 }
            guard cursor > start else { continue }
            // A version too large for Int is still a production version.
            return Int(String(decoding: bytes[start..<cursor], as: UTF8.self)) ?? Int.max
        }
        return 0
    }
}
