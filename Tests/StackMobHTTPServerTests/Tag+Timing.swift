import Testing

extension Tag {
    /// A suite bound by the wall clock, run alone by scripts/test.sh (docs/testing.md,
    /// "Timing-sensitive suites"). The same tag as StackMobTestSupport's: a tag is its name.
    @Tag static var timing: Self
}
