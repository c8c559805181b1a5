import StackMobCore
import StackMobHTTPServer

/// What this process knows of its own health, beside what its databases hold, for the admin
/// API's health and the console's overview (docs/operations.md, "Web console"). Made once by
/// `buildHTTPApplication` and handed to the admin router; every part is this instance's own.
struct InstanceHealth: Sendable {
    /// The event-loop stalls since start (`EventLoopStallDetector`).
    var stalls = EventLoopStalls()
    /// `monitoring.stall_warning_ms`: how late a check must run to count as a stall.
    var stallThresholdMilliseconds = MonitoringSettings().stallWarningMilliseconds
    /// The API port's connections; nil where no API listener is built (a router alone).
    var connections: ConnectionCounter?
}
