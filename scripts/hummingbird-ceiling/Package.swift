// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "hummingbird-ceiling",
    platforms: [.macOS(.v14)],
    dependencies: [
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1"),
    ],
    targets: [
        .executableTarget(name: "hummingbird-ceiling", dependencies: [.product(name: "Hummingbird", package: "hummingbird")]),
    ]
)
