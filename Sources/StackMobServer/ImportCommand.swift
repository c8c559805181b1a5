import ArgumentParser
import Foundation
import StackMobApp
import StackMobCore
import StackMobHTTP

#if canImport(Glibc)
    import Glibc
#endif

/// `stackmob-server import --env <env> --from <dir>`: loads an export, idempotently; checks
/// every line before writing anything.
struct ImportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "import", abstract: "Load an export directory into an environment.")

    @OptionGroup var data: DataOptions
    @Option(help: "development or production (default development).") var env = "development"
    @Option(help: "The export directory to read.") var from: String

    func run() async throws {
        let kind = try DataOptions.environment(env, option: "--env")
        let configuration = try data.load()
        let terminal = isatty(STDOUT_FILENO) != 0
        let shown = LastShown()
        let summary = try await DataOptions.reportingTransferErrors {
            try await ImportTool.importDirectory(
                from, configuration: configuration, storage: try StorageSelection.provider(for: configuration, logger: DataOptions.logger),
                environment: kind, logger: DataOptions.logger) { done, total in
                if let text = ImportProgress(total: total, terminal: terminal).text(done: done, previous: shown.swap(done)) {
                    FileHandle.standardOutput.write(Data(text.utf8))
                }
            }
        }
        let counts = summary.objects
        print("Imported into \(kind.rawValue): \(counts.inserted) new, \(counts.replaced) replaced, \(counts.unchanged) unchanged objects; \(summary.pushTokensAdded) push tokens added\(summary.files ? "; files copied" : "").")
    }
}

/// The last count shown, across the progress callback's calls.
private final class LastShown: Sendable {
    private let value = Mutex(0)
    func swap(_ next: Int) -> Int { value.withLock { previous in defer { previous = next }; return previous } }
}

import Synchronization
