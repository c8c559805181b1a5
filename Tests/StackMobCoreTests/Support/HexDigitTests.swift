import Crypto
import Foundation
import StackMobCore
import Testing

@Suite("Hex digits")
struct HexDigitTests {
    @Test("lowercase hex is what %02x writes, for every byte value and a SHA-256 digest")
    func lowercase() {
        let every = (0...255).map(UInt8.init)
        #expect(HexDigit.lowercase(every) == every.map { String(format: "%02x", $0) }.joined())
        #expect(HexDigit.lowercase([UInt8]()) == "")
        // SHA-256 of "abc", from FIPS 180-2.
        #expect(HexDigit.lowercase(SHA256.hash(data: Data("abc".utf8))) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
    }

    @Test("every digit written reads back as its value")
    func roundTrip() {
        for byte in 0...255 {
            let digits = Array(HexDigit.lowercase([UInt8(byte)]).utf8)
            #expect(HexDigit.value(digits[0]).map { $0 << 4 | HexDigit.value(digits[1])! } == UInt8(byte))
        }
    }
}
