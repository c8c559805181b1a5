import ArgumentParser
import Foundation
import StackMobApp
import StackMobCore
import StackMobHTTP

/// `stackmob-server outbox`: prints the mail kept in an environment's outbox (when no SMTP server
/// is configured), e.g. the temporary password of a forgotPassword request.
struct OutboxCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "outbox", abstract: "Print the mail kept in the outbox.")

    @Option(name: .customLong("data-dir"), help: "Data directory (default: from the configuration, ./stackmob-data).")
    var dataDirectory: String?

    @Option(name: .customLong("config"), help: "Configuration file (JSON; see config/README.md).")
    var configFile: String?

    @Option(help: "development or production (default development).")
    var environment: String = "development"

    func run() async throws {
        guard let kind = EnvironmentKind(rawValue: environment) else {
            throw ValidationError("--environment must be development or production")
        }
        var configuration = try ConfigurationLoader.load(file: configFile, environment: ProcessInfo.processInfo.environment)
        if let dataDirectory { configuration.dataDirectory = dataDirectory }
        let entries = try await Outbox.read(storage: try StorageSelection.provider(for: configuration, logger: DataOptions.logger), environment: kind)
        if entries.isEmpty { print("The \(kind.rawValue) outbox is empty.") }
        for entry in entries {
            let date = Date(timeIntervalSince1970: Double(entry.createdAt) / 1000)
            print("#\(entry.id)  \(date)\nTo: \(entry.message.to)\nSubject: \(entry.message.subject)\n\n\(entry.message.body)\n")
        }
    }
}
