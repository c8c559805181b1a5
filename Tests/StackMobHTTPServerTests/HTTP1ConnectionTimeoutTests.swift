import HTTPTypes
import NIOCore
import NIOHTTP1
import Testing

@testable import StackMobHTTPServer

/// The connection's deadlines in `HTTP1ConnectionStateMachine`, on a clock the test moves: each
/// one passes at its deadline, not a nanosecond sooner, and the one timer serves them all.
@Suite("HTTP/1.1 connection timeouts")
struct HTTP1ConnectionTimeoutTests {
    typealias Driver = HTTP1ConnectionStateMachineDriver

    enum Deadline: String, Sendable, CaseIterable {
        /// A new connection that sends nothing.
        case newConnection
        /// A head still incomplete after its first byte, on a connection already used.
        case head
        /// No request after a response.
        case idle
        /// A body still incomplete, its request not yet handed over.
        case bodyNotHandedOver
        /// A body still incomplete, its request handed over with a stream.
        case bodyStreamed
        /// The read side kept open after the last response.
        case linger
        /// A response under way that the client has stopped taking.
        case stalledOutput
    }

    /// Brings the connection to where `deadline` runs from; the time it passes and what then
    /// happens.
    static func arrange(_ deadline: Deadline, _ driver: inout Driver) -> (TimeAmount, [String]) {
        let timeouts = Driver.timeouts
        switch deadline {
        case .newConnection:
            return (timeouts.newConnection, ["close"])
        case .head:
            driver.receive(Driver.head(), .end(nil))
            driver.respond()
            _ = driver.advance(by: .seconds(1))
            driver.machine.bytesArrived(now: driver.now)
            _ = driver.run { _, _ in .none }
            return (.seconds(1) + timeouts.head, ["close"])
        case .idle:
            driver.receive(Driver.head(), .end(nil))
            driver.respond()
            return (timeouts.idle, ["close"])
        case .bodyNotHandedOver:
            driver.receive(Driver.head(.POST, "/thing", [("Content-Length", "10")]))
            return (timeouts.body, ["fail POST /thing RequestBodyTimeout #1"])
        case .bodyStreamed:
            driver.receive(Driver.head(.POST, "/thing", [("Content-Length", "10")]), Driver.body(2))
            driver.run { machine, _ in machine.readComplete() }
            return (timeouts.body, ["finish RequestBodyTimeout"])
        case .linger:
            driver.receive(Driver.head(.GET, "/thing", [("Connection", "close")]), .end(nil))
            #expect(driver.respond().actions == ["closeOutput"])
            return (timeouts.linger, ["close"])
        case .stalledOutput:
            driver.receive(Driver.head(), .end(nil))
            writable(false, &driver)
            return (timeouts.idle, ["close"])
        }
    }

    /// The channel's writability changes at the driver's time.
    static func writable(_ writable: Bool, _ driver: inout Driver) {
        driver.run { machine, now in
            machine.writabilityChanged(writable: writable, now: now)
            return .none
        }
    }

    @Test("each deadline passes at its time, not sooner", arguments: Deadline.allCases)
    func passes(_ deadline: Deadline) {
        var driver = Driver.opened()
        let (after, expected) = Self.arrange(deadline, &driver)
        let due = Driver.start + after
        #expect(driver.advance(to: due - .nanoseconds(1)) == [])
        #expect(driver.advance(to: due) == expected)
    }

    @Test("output the client takes again, however slowly, restarts the stalled-output deadline; none is kept once it is taken")
    func outputMoving() {
        var driver = Driver.opened()
        driver.receive(Driver.head(), .end(nil))
        Self.writable(false, &driver)
        #expect(driver.advance(by: Driver.timeouts.idle - .seconds(1)) == [])
        Self.writable(true, &driver)
        Self.writable(false, &driver)
        // A whole idle timeout from the second stall, not from the first.
        #expect(driver.advance(by: Driver.timeouts.idle - .nanoseconds(1)) == [])
        Self.writable(true, &driver)
        #expect(driver.machine.outputFullSince == nil)
        #expect(driver.advance(by: .seconds(1)) == [])
    }

    @Test("a body that times out closes the connection after its answer, which says so")
    func bodyTimeoutCloses() {
        var driver = Driver.opened()
        driver.receive(Driver.head(.POST, "/thing", [("Content-Length", "10")]), Driver.body(2))
        driver.run { machine, _ in machine.readComplete() }
        _ = driver.advance(by: Driver.timeouts.body)
        let (saysClose, actions) = driver.respond(HTTPResponse(status: .requestTimeout))
        #expect(saysClose)
        #expect(actions == ["closeOutput"])
    }

    @Test("a request under way is not cut by the idle or new-connection timeouts")
    func busyConnection() {
        var driver = Driver.opened()
        driver.receive(Driver.head(), .end(nil))
        #expect(driver.advance(by: .seconds(600)) == [])
        #expect(driver.respond().actions == [])
        #expect(driver.advance(by: Driver.timeouts.idle) == ["close"])
    }

    @Test("the bytes of a head on a new connection do not extend its new-connection timeout")
    func partialFirstHead() {
        var driver = Driver.opened()
        _ = driver.advance(by: .seconds(1))
        driver.machine.bytesArrived(now: driver.now)
        _ = driver.run { _, _ in .none }
        #expect(driver.advance(to: Driver.start + Driver.timeouts.newConnection) == ["close"])
    }

    @Test("an early wake-up keeps every deadline")
    func earlyTimer() {
        var driver = Driver.opened()
        #expect(driver.run { $0.timerFired(now: $1) } == [])
        #expect(driver.timer == Driver.start + Driver.timeouts.newConnection)
    }
}
