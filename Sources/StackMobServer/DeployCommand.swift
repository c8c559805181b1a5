import ArgumentParser
import Foundation
import StackMobApp
import StackMobCore
import StackMobHTTP

/// `stackmob-server deploy`: applies development's schemas (or a file) to production (or another
/// environment), additively, in one transaction; prints the plan.
struct DeployCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "deploy", abstract: "Apply development's schemas, or a schema file, to an environment (additive).")

    @OptionGroup var data: DataOptions
    @OptionGroup var source: DeploySource
    @Option(help: "The environment to deploy to (default production).")
    var to: String = "production"
    @Flag(help: "Only print the plan.")
    var dryRun = false
    @Flag(help: "Also drop the fields and schemas the target holds and the source does not declare (after copying the database to <data_dir>/backups/).")
    var drop = false

    func run() async throws {
        let target = try DataOptions.environment(to, option: "--to")
        let (configuration, source, apply, drop) = (try data.load(), try source.resolve(), !dryRun, drop)
        let (plan, dropped) = try await DataOptions.reportingSetupErrors {
            try await SchemaTool.plan(
                configuration: configuration, storage: try StorageSelection.provider(for: configuration, logger: DataOptions.logger), from: source, to: target, apply: apply, drop: drop, logger: DataOptions.logger)
        }
        print(SchemaTool.report(plan, target: target, applied: !dryRun, drop: dropped))
        if !plan.conflicts.isEmpty { throw ExitCode(1) }
    }
}

/// `--from <environment>` or `--file <path>` (default: `--from development`).
struct DeploySource: ParsableArguments {
    @Option(help: "The environment whose schemas to apply (default development).")
    var from: String?
    @Option(help: "A schema file ({\"schemas\": {…}}, as `schema export` prints) to apply instead.")
    var file: String?

    func resolve() throws -> SchemaTool.Source {
        if let file {
            guard from == nil else { throw ValidationError("give --from or --file, not both") }
            return .file(file)
        }
        return .environment(try DataOptions.environment(from ?? "development", option: "--from"))
    }
}
