import ArgumentParser
import Foundation
import StackMobApp
import StackMobCore
import StackMobHTTP

/// `stackmob-server export --env <env> --out <dir>`: schemas, objects, users (password hashes),
/// roles and push tokens as plain files (docs/operations.md, "Export and import").
struct ExportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "export", abstract: "Write an environment's data to a directory.")

    @OptionGroup var data: DataOptions
    @Option(help: "development or production (default development).") var env = "development"
    @Option(help: "The directory to write (new or empty).") var out: String
    @Flag(help: "Also copy the binary fields' files (local file store).") var files = false

    func run() async throws {
        let kind = try DataOptions.environment(env, option: "--env")
        let configuration = try data.load()
        let summary = try await DataOptions.reportingTransferErrors {
            try await ExportTool.export(
                configuration: configuration, storage: try StorageSelection.provider(for: configuration, logger: DataOptions.logger),
                environment: kind, to: out, includeFiles: files, logger: DataOptions.logger)
        }
        let objects = summary.objects.values.reduce(0, +)
        print("Exported \(objects) objects in \(summary.objects.count) schemas and \(summary.pushTokens) push tokens from \(kind.rawValue) to \(out)\(summary.files ? ", with files" : "").")
    }
}
