import Foundation
import StackMobCore
import Testing

@Suite("Binary envelopes, file keys and byte ranges")
struct BinaryEnvelopeTests {
    @Test("the SDKs' envelope parses; CRLF and a quoted file name too")
    func parses() throws {
        let text = "Content-Type: image/png\nContent-Disposition: attachment; filename=cat.png\nContent-Transfer-Encoding: base64\n\nAAEC"
        let envelope = try BinaryEnvelope.parse(text, field: "pic")
        #expect(envelope == BinaryEnvelope(contentType: "image/png", filename: "cat.png", bytes: [0, 1, 2]))
        let crlf = "content-type: text/plain\r\ncontent-disposition: attachment; filename=\"a b.txt\"\r\n\r\naGk="
        #expect(try BinaryEnvelope.parse(crlf, field: "f").filename == "a b.txt")
        #expect(BinaryEnvelope.looksLikeEnvelope(text))
        #expect(!BinaryEnvelope.looksLikeEnvelope("http://x/Content-Type: a"))
    }

    @Test("malformed envelopes and bad base64 are refused with the field's name")
    func refuses() {
        #expect(throws: BinaryFieldError.invalidBase64(field: "pic")) {
            try BinaryEnvelope.parse("Content-Type: a/b\nContent-Disposition: attachment; filename=x\n\nAA\nAA==", field: "pic")
        }
        #expect(throws: BinaryFieldError.self) { try BinaryEnvelope.parse("Content-Type: a/b", field: "pic") }
        #expect(throws: BinaryFieldError.self) { try BinaryEnvelope.parse("Content-Type: a/b\n\nAAAA", field: "pic") }
    }

    @Test("the envelope's base64 decodes as Foundation decoded it, for every length and alphabet character, and what it refused stays refused")
    func base64AgainstFoundation() throws {
        var generator = SystemRandomNumberGenerator()
        let header = "Content-Type: a/b\nContent-Disposition: attachment; filename=x\n\n"
        for length in Array(0...70) + [1_000, 65_537] {
            let bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
            let encoded = Data(bytes).base64EncodedString()
            #expect(try BinaryEnvelope.parse(header + encoded, field: "f").bytes == bytes, "length \(length)")
            #expect(try BinaryEnvelope.parse(header + "\n " + encoded + " \r\n", field: "f").bytes == bytes, "surrounding whitespace")
        }
        let refused = ["A", "AA", "AAA", "AAAAA", "A===", "=AAA", "AA==AAAA", "AA AA", "AA\nAA==", "AA-_", "AAA\u{00e9}", "AAAA\u{0}",
                       "*AAA", "A*AA", "AA*A", "AAA*", "AAAAA*AA", "A*==", "AA*=", "*A=="]
        for text in refused {
            #expect(Data(base64Encoded: text) == nil, "Foundation refuses \(text.debugDescription)")
            #expect(throws: BinaryFieldError.invalidBase64(field: "f"), "\(text.debugDescription)") { try BinaryEnvelope.parse(header + text, field: "f") }
        }
        // Stricter than Foundation, which reads "AA=A" as two bytes: padding ends the data.
        #expect(throws: BinaryFieldError.invalidBase64(field: "f")) { try BinaryEnvelope.parse(header + "AA=A", field: "f") }
    }

    @Test("an envelope whose headers never end is refused after a few kilobytes, not read to its end")
    func boundedHeaders() {
        let endless = "Content-Type: a/b\n" + String(repeating: "X-Filler: yes\n", count: 100_000) + "\nAAAA"
        #expect(throws: BinaryFieldError.self) { try BinaryEnvelope.parse(endless, field: "f") }
    }

    @Test("file keys escape ids, sanitise names, and only parse URLs of their own shape")
    func keys() {
        let key = FileKey(environment: .production, schema: "photo", id: "a/b", field: "pic", filename: "../x.png")
        #expect(key.path == "production/photo/a%2Fb/pic/file.._x.png")
        #expect(key.urlPath == "photo/a%2Fb/pic/file.._x.png")
        #expect(FileKey(url: "https://cdn.example.com/base/" + key.urlPath, environment: .production) == key)
        #expect(FileKey(environment: .development, schema: "s", id: "..", field: "f", filename: "n").path == "development/s/%2E%2E/f/n")
        #expect(FileKey(url: "http://x/photo/../pic/a.png", environment: .development) == nil)
        #expect(FileKey(url: "http://x/Photo/1/pic/a.png", environment: .development) == nil)
        #expect(FileKey(url: "http://x/photo/1/pic/../a.png", environment: .development) == nil)
        #expect(FileKey(url: "ftp://x/photo/1/pic/a.png", environment: .development) == nil)
    }

    @Test("byte ranges: closed, open-ended, suffix, clamped, unsatisfiable, ignored")
    func ranges() {
        #expect(ByteRange.parse("bytes=0-9", size: 100) == .partial(0...9))
        #expect(ByteRange.parse("bytes=90-", size: 100) == .partial(90...99))
        #expect(ByteRange.parse("bytes=-5", size: 100) == .partial(95...99))
        #expect(ByteRange.parse("bytes=50-500", size: 100) == .partial(50...99))
        #expect(ByteRange.parse("bytes=100-200", size: 100) == .unsatisfiable)
        #expect(ByteRange.parse("bytes=9-1", size: 100) == .unsatisfiable)
        #expect(ByteRange.parse("bytes=x-1", size: 100) == .unsatisfiable)
        #expect(ByteRange.parse("bytes=0-1,5-6", size: 100) == .whole)
        #expect(ByteRange.parse("objects=0-1", size: 100) == .whole)
        #expect(ByteRange.parse(nil, size: 100) == .whole)
    }

    @Test("the custom-code payload carries the user, or null")
    func customCodePayload() {
        var call = CustomCodeCall(
            method: "m", verb: "GET", parameters: [("a", "1")], body: "", headers: [:], caller: .user(schema: "user", id: "alice"),
            environment: .development, apiVersion: 0)
        #expect(call.json.objectValue?["user"] == .object(["schema": "user", "id": "alice"]))
        call.caller = .anonymous
        #expect(call.json.objectValue?["user"] == .null)
        #expect(CustomCodeCall.forwards(header: "X-StackMob-Relations"))
        #expect(!CustomCodeCall.forwards(header: "Authorization"))
        #expect(!CustomCodeCall.forwards(header: "Cookie"))
    }
}
