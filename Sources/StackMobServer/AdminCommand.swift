import ArgumentParser
import Foundation
import StackMobApp
import StackMobCore
import StackMobHTTP

#if canImport(Glibc)
    import Glibc
#endif

/// `stackmob-server admin add <name>`: creates an operator account of the admin API. The password
/// is asked for on a terminal, else read from the first line of standard input (scripts); it is
/// never taken from the command line, where `ps` and shell history would show it.
struct AdminCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "admin", abstract: "Manage the admin API's operator accounts.", subcommands: [Add.self])

    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Create an operator account (password from the terminal or stdin).")

        @OptionGroup var data: DataOptions
        @Argument(help: "The operator's name (lower-case letters, digits, '_', '-' and '.').")
        var name: String

        func run() async throws {
            let configuration = try data.load()
            let password: String?
            if isatty(STDIN_FILENO) != 0 {
                password = getpass("Password for \(name): ").map { String(cString: $0) }
            } else {
                password = readLine(strippingNewline: true)
            }
            guard let password, !password.isEmpty else { throw ValidationError("no password given on standard input") }
            do {
                try await DataOptions.reportingSetupErrors {
                    try await AdminTool.addOperator(configuration: configuration, storage: try StorageSelection.provider(for: configuration, logger: DataOptions.logger), name: name, password: password, logger: DataOptions.logger)
                }
            } catch let error as AdminError {
                FileHandle.standardError.write(Data("stackmob-server: \(error.message)\n".utf8))
                throw ExitCode(1)
            }
            print("Operator '\(name)' created.")
        }
    }
}
