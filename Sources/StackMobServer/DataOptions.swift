import ArgumentParser
import Foundation
import Logging
import StackMobCore
import StackMobSQLite

/// `--config` and `--data-dir` for the commands that work on the data directory offline.
struct DataOptions: ParsableArguments {
    @Option(name: .customLong("config"), help: "Configuration file (JSON; see config/README.md).")
    var configFile: String?
    @Option(name: .customLong("data-dir"), help: "Data directory (default: from the configuration, ./stackmob-data).")
    var dataDirectory: String?

    func load() throws -> StackMobConfiguration {
        do {
            var configuration = try ConfigurationLoader.load(file: configFile, environment: ProcessInfo.processInfo.environment)
            if let dataDirectory { configuration.dataDirectory = dataDirectory }
            try configuration.validate()
            return configuration
        } catch let error as ConfigurationError {
            FileHandle.standardError.write(Data("stackmob-server: \(error)\n".utf8))
            throw ExitCode(78)
        }
    }

    /// Runs a command's work; a configuration or stored state that cannot be used ends it with
    /// exit code 78 and one line naming the key, schema or field, as `serve` does.
    static func reportingSetupErrors<Value>(_ body: () async throws -> Value) async throws -> Value {
        do {
            return try await body()
        } catch let error as ConfigurationError {
            FileHandle.standardError.write(Data("stackmob-server: \(error)\n".utf8))
            throw ExitCode(78)
        } catch let error as DatastoreSetupError {
            FileHandle.standardError.write(Data("stackmob-server: \(error)\n".utf8))
            throw ExitCode(78)
        } catch let error as StorageUnavailableError {
            // EX_UNAVAILABLE: a service the server needs is not there.
            FileHandle.standardError.write(Data("stackmob-server: \(error)\n".utf8))
            throw ExitCode(69)
        }
    }

    /// As `reportingSetupErrors`; a bad export, backup or target ends the command with exit code 1
    /// and the message naming the file and line.
    static func reportingTransferErrors<Value>(_ body: () async throws -> Value) async throws -> Value {
        do {
            return try await reportingSetupErrors(body)
        } catch let error as TransferError {
            FileHandle.standardError.write(Data("stackmob-server: \(error)\n".utf8))
            throw ExitCode(1)
        } catch let error as RestoreRefusal {
            FileHandle.standardError.write(Data("stackmob-server: \(error)\n".utf8))
            throw ExitCode(1)
        }
    }

    static func environment(_ name: String, option: String) throws -> EnvironmentKind {
        guard let kind = EnvironmentKind(rawValue: name) else { throw ValidationError("\(option) must be development or production") }
        return kind
    }

    /// Warnings and errors only: the commands' output is their plan or export.
    static let logger: Logger = {
        var logger = Logger(label: "stackmob")
        logger.logLevel = .warning
        return logger
    }()
}
