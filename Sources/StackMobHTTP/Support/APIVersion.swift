/// The API version a request asks for, from `Accept: application/vnd.stackmob+json; version=N`
/// (PROTOCOL §2.5): `version\s*=\s*(\d+)` anywhere in the header, since jQuery may merge several
/// values into one; none means 0 (D34).
enum APIVersion {
    static func parse(accept: String?) -> Int {
        guard var accept else { return 0 }
        // Over the header's bytes in place: every request's environment is read from it, twice.
        return accept.withUTF8 { parse($0) }
    }

    private static let keyword = Array("version".utf8)

    private static func parse(_ bytes: UnsafeBufferPointer<UInt8>) -> Int {
        var index = 0
        while index + keyword.count <= bytes.count {
            defer { index += 1 }
            // The first byte alone turns most positions down (a word-by-word comparison at each
            // position of the SDKs' header cost far more: docs/benchmarks.md, "Figures behind
            // design choices").
            guard bytes[index] == UInt8(ascii: "v"), keyword.indices.allSatisfy({ bytes[index + $0] == keyword[$0] }) else { continue }
            var cursor = index + keyword.count
            while cursor < bytes.count, bytes[cursor] == UInt8(ascii: " ") || bytes[cursor] == UInt8(ascii: "\t") { cursor += 1 }
            guard cursor < bytes.count, bytes[cursor] == UInt8(ascii: "=") else { continue }
            cursor += 1
            while cursor < bytes.count, bytes[cursor] == UInt8(ascii: " ") || bytes[cursor] == UInt8(ascii: "\t") { cursor += 1 }
            var version = 0
            var overflowed = false
            let start = cursor
            while cursor < bytes.count, bytes[cursor] >= UInt8(ascii: "0"), bytes[cursor] <= UInt8(ascii: "9") {
                let (times10, overflow1) = version.multipliedReportingOverflow(by: 10)
                let (sum, overflow2) = times10.addingReportingOverflow(Int(bytes[cursor] - UInt8(ascii: "0")))
                overflowed = overflowed || overflow1 || overflow2
                version = sum
                cursor += 1
            }
            guard cursor > start else { continue }
            // A version too large for Int is still a production version.
            return overflowed ? Int.max : version
        }
        return 0
    }
}
