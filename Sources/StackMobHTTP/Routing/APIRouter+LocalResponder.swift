import StackMobHTTPServer

/// The API's router answers on the request's executor (`LocalResponder`).
extension APIRouter: LocalResponder {}
