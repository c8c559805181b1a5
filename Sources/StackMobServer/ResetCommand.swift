import ArgumentParser
import Foundation
import StackMobCore
import StackMobAdapters

#if canImport(Glibc)
    import Glibc
#endif

/// `stackmob-server reset --env <env>`: asks a running server's admin API to return the
/// environment to its fixtures. The operator's password comes from `SM_ADMIN_PASSWORD` (a CI
/// secret), else the terminal or the first line of standard input, never the command line.
struct ResetCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "reset", abstract: "Return a running server's environment to its fixtures.")

    @Option(help: "development or production (default development).") var env = "development"
    @Option(help: "The server's base URL.") var url = "http://127.0.0.1:8080"
    @Option(name: .customLong("operator"), help: "The admin API operator to sign in as.") var operatorName: String

    func run() async throws {
        let kind = try DataOptions.environment(env, option: "--env")
        let password = ProcessInfo.processInfo.environment["SM_ADMIN_PASSWORD"]
            ?? (isatty(STDIN_FILENO) != 0 ? getpass("Password for \(operatorName): ").map { String(cString: $0) } : readLine(strippingNewline: true))
        guard let password, !password.isEmpty else { throw ValidationError("no password given on standard input") }
        do {
            let answer = try await AdminAPIClient(baseURL: url, operatorName: operatorName, password: password).reset(kind)
            let objects = answer.objectValue?["objects"]?.integerValue ?? 0
            let milliseconds = answer.objectValue?["milliseconds"]?.integerValue ?? 0
            print("Reset \(kind.rawValue): \(objects) fixture objects written in \(milliseconds) ms.")
        } catch let failure as AdminAPIClient.Failure {
            FileHandle.standardError.write(Data("stackmob-server: \(failure)\n".utf8))
            throw ExitCode(1)
        }
    }
}
