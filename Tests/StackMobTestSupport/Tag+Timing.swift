import Testing

extension Tag {
    /// A suite whose checks hold wall-clock bounds (a start-up time, a timeout, a deadline, a
    /// median of timings) or put a load of their own on the machine: beside other suites on a busy
    /// machine it can fail for want of CPU rather than for a fault. scripts/test.sh runs these
    /// suites apart, one at a time (docs/testing.md, "Timing-sensitive suites"). Tag whole suites
    /// only: scripts/timing_suites.py reads the tag from `@Suite` attributes.
    @Tag public static var timing: Self
}
