import ArgumentParser
import Foundation
import Logging
import StackMobApp
import StackMobCore
import StackMobHTTP

/// `stackmob-server schema export|diff`: schemas as code (config/README.md, "Schemas").
struct SchemaCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "schema", abstract: "Export an environment's schemas, or show what a deploy would change.",
        subcommands: [Export.self, Diff.self])

    struct Export: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Print an environment's schemas in the declaration format.")

        @OptionGroup var data: DataOptions
        @Option(help: "development or production (default development).")
        var env: String = "development"

        func run() async throws {
            let kind = try DataOptions.environment(env, option: "--env")
            let configuration = try data.load()
            let exported = try await DataOptions.reportingSetupErrors {
                try await SchemaTool.export(configuration: configuration, storage: try StorageSelection.provider(for: configuration, logger: DataOptions.logger), environment: kind, logger: DataOptions.logger)
            }
            print(exported, terminator: "")
        }
    }

    struct Diff: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Show what applying a file or another environment would change.")

        @OptionGroup var data: DataOptions
        @OptionGroup var source: DeploySource
        @Option(help: "The environment to compare with (default production).")
        var env: String = "production"

        func run() async throws {
            let target = try DataOptions.environment(env, option: "--env")
            let (configuration, source) = (try data.load(), try source.resolve())
            let (plan, _) = try await DataOptions.reportingSetupErrors {
                try await SchemaTool.plan(
                configuration: configuration, storage: try StorageSelection.provider(for: configuration, logger: DataOptions.logger), from: source, to: target, apply: false, logger: DataOptions.logger)
            }
            print(SchemaTool.report(plan, target: target, applied: false))
            if !plan.conflicts.isEmpty { throw ExitCode(1) }
        }
    }
}
