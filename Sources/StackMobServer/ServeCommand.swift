import ArgumentParser
import Foundation
import Hummingbird
import Logging
import StackMobApp
import StackMobCore
import StackMobHTTP

/// `stackmob-server serve`: loads the configuration (defaults, then `--config`, then `STACKMOB_…`
/// variables, then these flags) and serves until SIGINT or SIGTERM.
struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "serve", abstract: "Serve the API (the default command).")

    @Option(help: "Address to listen on (default 127.0.0.1; 0.0.0.0 for every interface).")
    var host: String?

    @Option(help: "Port to listen on (default 8080).")
    var port: Int?

    @Option(name: .customLong("data-dir"), help: "Directory for the SQLite databases and generated keys (default ./stackmob-data).")
    var dataDirectory: String?

    @Option(name: .customLong("config"), help: "Configuration file (JSON; see config/README.md).")
    var configFile: String?

    @Option(name: .customLong("log-level"), help: "trace, debug, info, notice, warning, error or critical (default info).")
    var logLevel: String?

    @Flag(help: "Keep all data in a temporary directory, removed on exit (CI).")
    var ephemeral = false

    @Option(help: "A fixture file (schemas, users, roles, objects) loaded at start and by each reset.")
    var fixtures: String?

    func run() async throws {
        MallocTuning.apply(environment: ProcessInfo.processInfo.environment)
        let configuration: StackMobConfiguration
        let ignoredVariables: [String]
        do {
            (configuration, ignoredVariables) = try loadConfiguration()
        } catch let error as ConfigurationError {
            FileHandle.standardError.write(Data("stackmob-server: \(error)\n".utf8))
            throw ExitCode(78)  // EX_CONFIG
        }
        let output = LogOutput.standardError()
        // Lines queued behind a write under way are written before the process exits, on
        // every way out of this function.
        defer { output.flush() }
        switch configuration.logFormat {
        case .json:
            let timestamps = LogTimestamps.utc()
            LoggingSystem.bootstrap { JSONLogHandler(label: $0, timestamps: timestamps, output: output) }
        case .text:
            let timestamps = LogTimestamps.local()
            LoggingSystem.bootstrap { TextLogHandler(label: $0, timestamps: timestamps, output: output) }
        }
        var logger = Logger(label: "stackmob")
        logger.logLevel = Logger.Level(rawValue: configuration.logLevel.rawValue) ?? .info
        // Kept for the console's overview, with the warnings the rest of start-up logs.
        let warnings = ConfigurationWarnings()
        // Named, never with its value: CI jobs keep client keys in such variables.
        for name in ignoredVariables {
            warnings.warn("Environment variable names no configuration key; ignored", metadata: ["sm.variable": "\(name)"], logger: logger)
        }
        var serving = configuration
        let scratch = try ephemeral ? EphemeralDirectory() : nil
        scratch?.apply(to: &serving)
        if let scratch { logger.notice("Ephemeral data directory, removed on exit", metadata: ["sm.data_dir": "\(scratch.path)"]) }
        defer { scratch?.remove() }
        try await DataOptions.reportingSetupErrors {
            let app = try await buildApplication(configuration: serving, logger: logger, warnings: warnings)
            try await app.runService()
        }
    }

    private func loadConfiguration() throws -> (StackMobConfiguration, ignoredVariables: [String]) {
        let loaded = try ConfigurationLoader.loadReportingIgnored(file: configFile, environment: ProcessInfo.processInfo.environment)
        var configuration = loaded.configuration
        if let host { configuration.host = host }
        if let port {
            guard (0...65535).contains(port) else { throw ConfigurationError(key: "--port", "must be from 0 to 65535") }
            configuration.port = port
        }
        if let dataDirectory { configuration.dataDirectory = dataDirectory }
        if let fixtures { configuration.fixturesFile = fixtures }
        if let logLevel {
            guard let level = StackMobConfiguration.LogLevel(rawValue: logLevel.lowercased()) else {
                throw ConfigurationError(key: "--log-level", "must be one of \(StackMobConfiguration.LogLevel.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            configuration.logLevel = level
        }
        try configuration.validate()
        return (configuration, loaded.ignoredVariables)
    }
}
