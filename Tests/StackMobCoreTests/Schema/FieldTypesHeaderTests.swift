import StackMobCore
import Testing

@Suite("X-StackMob-FieldTypes parsing")
struct FieldTypesHeaderTests {
    @Test("pairs, lower-cased types, malformed pairs skipped")
    func parse() {
        let parsed = FieldTypesHeader.parse("location=geopoint&email=ForgotPassword&broken&=x&photo=")
        #expect(parsed.map(\.path) == ["location", "email"])
        #expect(parsed.map(\.type) == ["geopoint", "forgotpassword"])
        #expect(FieldTypesHeader.parse("").isEmpty)
    }
}
