import ArgumentParser
import Foundation
import StackMobCore

/// `stackmob-server html5 …`: publishes an environment's HTML5 app (docs/operations.md, "Hosting
/// your HTML5 app"). Thin: each subcommand calls `HTML5Deployments`, as the admin API does.
struct HTML5Command: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "html5", abstract: "Deploy, roll back and promote the HTML5 app.",
        subcommands: [Deploy.self, Rollback.self, Promote.self, List.self])

    struct Options: ParsableArguments {
        @Option(name: .customLong("data-dir"), help: "Data directory (default: from the configuration, ./stackmob-data).")
        var dataDirectory: String?

        @Option(name: .customLong("config"), help: "Configuration file (JSON; see config/README.md).")
        var configFile: String?

        /// The deployments of the configured data directory; exits 78 on a bad configuration.
        func deployments() throws -> HTML5Deployments {
            do {
                var configuration = try ConfigurationLoader.load(file: configFile, environment: ProcessInfo.processInfo.environment)
                if let dataDirectory { configuration.dataDirectory = dataDirectory }
                return HTML5Deployments(configuration: configuration)
            } catch let error as ConfigurationError {
                FileHandle.standardError.write(Data("stackmob-server: \(error)\n".utf8))
                throw ExitCode(78)  // EX_CONFIG
            }
        }
    }

    struct Deploy: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Publish a directory as the environment's new version.")
        @Argument(help: "The directory of the app's files (index.html at its top).") var directory: String
        @Option(name: .customLong("env"), help: "development or production (default development).") var environment = "development"
        @OptionGroup var options: Options

        func run() async throws {
            let kind = try environmentKind(environment)
            let number = try report { try options.deployments().deploy(directory: directory, to: kind) }
            print("Deployed \(directory) to \(kind.rawValue) as version \(number).")
        }
    }

    struct Rollback: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Serve the version before the current one again.")
        @Option(name: .customLong("env"), help: "development or production (default development).") var environment = "development"
        @OptionGroup var options: Options

        func run() async throws {
            let kind = try environmentKind(environment)
            let number = try report { try options.deployments().rollback(kind) }
            print("\(kind.rawValue) now serves version \(number).")
        }
    }

    struct Promote: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Publish development's current files to production.")
        @OptionGroup var options: Options

        func run() async throws {
            let number = try report { try options.deployments().promote(from: .development, to: .production) }
            print("Promoted development's files to production as version \(number).")
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List the kept versions; * marks the one served.")
        @Option(name: .customLong("env"), help: "development or production (default development).") var environment = "development"
        @OptionGroup var options: Options

        func run() async throws {
            let kind = try environmentKind(environment)
            let deployments = try options.deployments()
            let current = deployments.current(kind)?.number
            let versions = deployments.versions(kind)
            if versions.isEmpty { print("Nothing is deployed to \(kind.rawValue).") }
            for number in versions { print("\(number == current ? "*" : " ") \(number)") }
        }
    }
}

private func environmentKind(_ name: String) throws -> EnvironmentKind {
    try DataOptions.environment(name, option: "--env")
}

/// Prints an `HTML5Error` as the operator's message and exits 1.
private func report<Value>(_ body: () throws -> Value) throws -> Value {
    do {
        return try body()
    } catch let error as HTML5Error {
        FileHandle.standardError.write(Data("stackmob-server: \(error.message)\n".utf8))
        throw ExitCode.failure
    }
}
