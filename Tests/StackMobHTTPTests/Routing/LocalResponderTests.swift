import Hummingbird
import StackMobHTTPServer
import Testing

@testable import StackMobHTTP

/// The API's responder is called on the request's executor (`LocalResponder`); the other
/// listeners' through their `respond`.
@Suite("Local responders")
struct LocalResponderTests {
    @Test("the API listener's responder answers on the request's executor; the others through their respond")
    func localResponders() {
        #expect(MethodOverrideResponder<APIRouter>.self is any LocalResponder.Type)
        #expect(!(MethodOverrideResponder<RouterResponder<StackMobRequestContext>>.self is any LocalResponder.Type))
    }
}
