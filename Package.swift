// swift-tools-version:6.2
import PackageDescription

/// A release build on Linux links the Swift runtime and Foundation in, as `--static-swift-stdlib`
/// does for scripts/build-release.sh, so that a plain `swift build -c release` makes the same fast
/// binary: every call into the runtime skips the dynamic linker's indirection (8–15% less CPU per
/// request), and the binary runs without the toolchain's libraries (docs/operations.md,
/// "Building outside Docker"). Foundation's archives do not name the archives they use, as its
/// shared libraries do, hence the list. Debug builds stay dynamic, quicker to link for `swift run`
/// and the tests. `STACKMOB_DYNAMIC_STDLIB=1` links a release build dynamically, for a toolchain
/// without the static libraries.
var staticSwiftRuntime: [LinkerSetting] {
    guard Context.environment["STACKMOB_DYNAMIC_STDLIB"] == nil else { return [] }
    let flags = ["-static-stdlib", "-lCoreFoundation", "-l_FoundationICU", "-l_FoundationCollections", "-l_FoundationCShims"]
    return [.unsafeFlags(flags, .when(platforms: [.linux], configuration: .release))]
}

let package = Package(
    name: "stackmob-server",
    platforms: [.macOS(.v14)],
    products: [
        .executable(name: "stackmob-server", targets: ["StackMobServer"]),
        // For the fuzz package in Fuzz/, which feeds client bytes to the parsers of both modules.
        .library(name: "StackMobCore", targets: ["StackMobCore"]),
        .library(name: "StackMobHTTP", targets: ["StackMobHTTP"]),
    ],
    dependencies: [
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1"),
        .package(url: "https://github.com/groue/GRDB.swift.git", from: "7.10.0"),
        .package(url: "https://github.com/vapor/postgres-nio.git", from: "1.33.2"),
        .package(url: "https://github.com/apple/swift-crypto.git", from: "3.12.3"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.8.0"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.37.6"),
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
        // Already in the graph through async-http-client; declared for the APNs test stub.
        .package(url: "https://github.com/apple/swift-nio-http2.git", from: "1.38.0"),
        // Already in the graph through Hummingbird; declared for the connection guard, which
        // handles the HTTP parts Hummingbird's pipeline carries.
        .package(url: "https://github.com/apple/swift-nio-extras.git", from: "1.34.1"),
        // The web console's server-rendered pages.
        .package(url: "https://github.com/hummingbird-project/swift-mustache.git", from: "2.1.1"),
        // /metrics: the metrics API, and its Prometheus text-format backend (one registry per app).
        .package(url: "https://github.com/apple/swift-metrics.git", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus.git", from: "2.4.1"),
    ],
    targets: [
        // SQL for the server's internal tables, embedded in the binary so that `swift run`
        // and the Docker image need no files beside the executable.
        .target(
            name: "StackMobMigrations",
            path: "migrations",
            exclude: ["README.md"],
            resources: [
                .embedInCode("sql/v001_schema_registry.sql"),
                .embedInCode("sql/v002_users_tokens.sql"),
                .embedInCode("sql/v003_user_email_fields.sql"),
                .embedInCode("sql/v004_cookie_sessions.sql"),
                .embedInCode("sql/v005_push.sql"),
                .embedInCode("sql/v006_social.sql"),
                .embedInCode("sql/v007_schema_settings.sql"),
                .embedInCode("sql/v008_operators.sql"),
                .embedInCode("sql/v009_role_grants.sql"),
                .embedInCode("postgresql/v001_internal_tables.sql"),
                .embedInCode("postgresql/v002_role_grants.sql"),
                .embedInCode("postgresql/v003_row_counts.sql"),
            ]
        ),
        // The system zlib (already linked through swift-nio-extras): gzip copies of HTML5 files.
        .systemLibrary(name: "CZlib", path: "Sources/CZlib"),
        // glibc's mallopt, for the allocator setting the server starts with (MallocTuning).
        .systemLibrary(name: "CMalloc", path: "Sources/CMalloc"),
        // The domain: schemas, objects, users, push, and the storage boundary every engine
        // implements. Imports no Hummingbird, no NIO and no database driver.
        .target(
            name: "StackMobCore",
            dependencies: [
                "CZlib",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // The embedded engine: SQLite files through GRDB.
        .target(
            name: "StackMobSQLite",
            dependencies: [
                "StackMobCore",
                "StackMobMigrations",
                .product(name: "GRDB", package: "GRDB.swift"),
                // sqlite3_progress_handler, which GRDB does not wrap.
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // The shared engine: PostgreSQL through postgres-nio, for several instances on one database.
        .target(
            name: "StackMobPostgres",
            dependencies: [
                "StackMobCore",
                "StackMobMigrations",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ]
        ),
        // Outgoing mail over SMTP (STARTTLS, AUTH), on SwiftNIO.
        .target(
            name: "StackMobMail",
            dependencies: [
                "StackMobCore",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // The HTTP/1.1 server every listener runs on, generic over Hummingbird's request context:
        // connections, their limits and timeouts, the request deadline, the response encoder, and
        // the route trie. Knows nothing of StackMob: imports neither StackMobCore nor StackMobHTTP.
        .target(
            name: "StackMobHTTPServer",
            dependencies: [
                .product(name: "Hummingbird", package: "hummingbird"),
                // The connection layer (`HTTP1Connection`) plugs into Hummingbird's server.
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                // NIO's HTTP/1.1 parser, and the parts of a connection.
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                .product(name: "NIOHTTPTypesHTTP1", package: "swift-nio-extras"),
            ]
        ),
        // HTTP: request context, middleware, controllers, error mapping.
        .target(
            name: "StackMobHTTP",
            dependencies: [
                "StackMobCore",
                "StackMobHTTPServer",
                .product(name: "Hummingbird", package: "hummingbird"),
                // A listener's `HTTPServerBuilder`.
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "NIOCore", package: "swift-nio"),
                // Its thread pool: blocking work (a site's deploy) off the event loops.
                .product(name: "NIOPosix", package: "swift-nio"),
                // Malformed requests: NIO's parser errors.
                .product(name: "NIOHTTP1", package: "swift-nio"),
                // Signed request bodies (OAuth 1 body hash).
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Mustache", package: "swift-mustache"),
                // /metrics: counters and histograms recorded through an injected factory.
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
            ],
            // The OpenAPI document and the console's templates and assets, compiled into the binary
            // like the migrations: nothing to ship beside the executable, and no `Bundle.module`
            // lookup that fails once it is copied.
            resources: [
                .embedInCode("OpenAPI/openapi.json"),
                .embedInCode("Console/Templates/backups.mustache"),
                .embedInCode("Console/Templates/bottom.mustache"),
                .embedInCode("Console/Templates/csrf.mustache"),
                .embedInCode("Console/Templates/customcode.mustache"),
                .embedInCode("Console/Templates/data.mustache"),
                .embedInCode("Console/Templates/deploy.mustache"),
                .embedInCode("Console/Templates/mail.mustache"),
                .embedInCode("Console/Templates/message.mustache"),
                .embedInCode("Console/Templates/object.mustache"),
                .embedInCode("Console/Templates/overview.mustache"),
                .embedInCode("Console/Templates/push.mustache"),
                .embedInCode("Console/Templates/requests.mustache"),
                .embedInCode("Console/Templates/schema.mustache"),
                .embedInCode("Console/Templates/schemas.mustache"),
                .embedInCode("Console/Templates/signin.mustache"),
                .embedInCode("Console/Templates/top.mustache"),
                .embedInCode("Console/Templates/traffic.mustache"),
                .embedInCode("Console/Templates/users.mustache"),
                .embedInCode("Console/Assets/console.css"),
                .embedInCode("Console/Assets/console.js"),
            ]
        ),
        // What the server calls out to over HTTP, behind Core's protocols (`OutboundGateways`):
        // custom-code webhooks, social providers, push (webhook, APNs), S3, and the admin API
        // client of `stackmob-server reset`.
        .target(
            name: "StackMobAdapters",
            dependencies: [
                "StackMobCore",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                // APNs: the client's TLS trust (ca_file) and its ES256 key.
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "Crypto", package: "swift-crypto"),
            ]
        ),
        // The composition root: picks the engine, the mailer and the engine's services, and
        // builds the application. The only library that knows every module.
        .target(
            name: "StackMobApp",
            dependencies: [
                "StackMobCore",
                "StackMobHTTP",
                "StackMobAdapters",
                "StackMobSQLite",
                "StackMobPostgres",
                "StackMobMail",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
        .executableTarget(
            name: "StackMobServer",
            dependencies: [
                "StackMobApp",
                "StackMobHTTP",
                "StackMobCore",
                // `reset` calls a running server's admin API.
                "StackMobAdapters",
                .product(name: "Hummingbird", package: "hummingbird"),
                // `backup` and `restore` copy SQLite files.
                "StackMobSQLite",
                "CMalloc",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ],
            linkerSettings: staticSwiftRuntime
        ),
        .target(
            name: "StackMobTestSupport",
            dependencies: [
                "StackMobApp",
                "StackMobHTTP",
                "StackMobCore",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                // RawConnection: requests no HTTP client would send.
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                // OAuth1Signer's oauth_body_hash, computed apart from the server's.
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            path: "Tests/StackMobTestSupport"
        ),
        // The fuzz corpora's loader, shared by both test targets (Foundation and Testing only).
        .target(name: "StackMobFuzzInput", path: "Tests/StackMobFuzzInput"),
        .testTarget(
            name: "StackMobCoreTests",
            dependencies: [
                "StackMobCore", "StackMobSQLite", "StackMobFuzzInput", .product(name: "Crypto", package: "swift-crypto"),
                // `mallinfo2`, to weigh a parsed text against `JSONParser.bytesPerValue`.
                "CMalloc",
                // Tests that write a database as an earlier version left it.
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
            ]
        ),
        .testTarget(
            name: "StackMobMailTests",
            dependencies: [
                "StackMobMail", "StackMobCore", "StackMobTestSupport",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ],
            resources: [.copy("Certificates")]
        ),
        // The server module alone: the connection's state machine, its handler on an
        // `EmbeddedChannel`, the encoder, the deadlines, the route trie. No StackMob module.
        .testTarget(
            name: "StackMobHTTPServerTests",
            dependencies: [
                "StackMobHTTPServer",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOHTTPTypesHTTP1", package: "swift-nio-extras"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
            ]
        ),
        .testTarget(
            name: "StackMobHTTPTests",
            dependencies: [
                "StackMobApp", "StackMobHTTP", "StackMobHTTPServer", "StackMobCore", "StackMobSQLite", "StackMobPostgres", "StackMobTestSupport", "StackMobFuzzInput",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "NIOCore", package: "swift-nio"),
                // The APNs stub: an HTTP/2 server over TLS with the committed test certificate.
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOHTTPTypesHTTP1", package: "swift-nio-extras"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "NIOHTTP2", package: "swift-nio-http2"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "Crypto", package: "swift-crypto"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
