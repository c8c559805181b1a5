// swift-tools-version:6.0
import PackageDescription

// libFuzzer targets for the parsers that take client bytes (issue 20). A package of its own, so
// that building or testing the server never compiles them; build them with
//     swift build --package-path Fuzz -Xswiftc -sanitize=fuzzer,address
// or, simpler, `python3 scripts/fuzz.py`. Each target's corpus is in corpus/<target>/, crash
// inputs in regressions/<target>/; the server's tests replay both.

/// One fuzz target: an executable around one parser family.
func fuzzTarget(_ name: String, _ dependencies: [Target.Dependency]) -> Target {
    .executableTarget(name: name, dependencies: ["FuzzDriver"] + dependencies)
}

// The root package's library products, by the name its dependency below is given.
let core = Target.Dependency.product(name: "StackMobCore", package: "stackmob-server")
let http = Target.Dependency.product(name: "StackMobHTTP", package: "stackmob-server")

let package = Package(
    name: "stackmob-fuzz",
    platforms: [.macOS(.v14)],
    dependencies: [
        // Named, so the products below do not depend on the name of the checkout's directory.
        .package(name: "stackmob-server", path: ".."),
    ],
    targets: [
        // Calls libFuzzer's driver: SwiftPM's `main` for an executable hides libFuzzer's.
        .target(name: "FuzzDriver"),
        fuzzTarget("FuzzJSON", [core]),
        fuzzTarget("FuzzConfig", [core]),
        fuzzTarget("FuzzQuery", [core, http]),
        fuzzTarget("FuzzQueryHeaders", [core]),
        fuzzTarget("FuzzRange", [core]),
        fuzzTarget("FuzzAccept", [http]),
        fuzzTarget("FuzzMACHeader", [core]),
        fuzzTarget("FuzzOAuth1Header", [core]),
        fuzzTarget("FuzzFormBody", [http]),
        fuzzTarget("FuzzPercentDecoding", [core, http]),
        fuzzTarget("FuzzBinaryEnvelope", [core]),
    ],
    swiftLanguageModes: [.v6]
)
