import ArgumentParser
import StackMobCore

/// `stackmob-server keys`: both environments' API keys, on request. The server's log shows a
/// private key once, at the start that generates it, and never production's (docs/operations.md,
/// "Keys").
struct KeysCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "keys", abstract: "Print both environments' API keys.")

    @OptionGroup var data: DataOptions

    func run() async throws {
        let configuration = try data.load()
        let keys = try await DataOptions.reportingSetupErrors {
            try KeyStore(dataDirectory: configuration.dataDirectory).current(configuration)
        }
        for kind in EnvironmentKind.allCases {
            guard let pair = keys[kind] else {
                print("\(kind.rawValue): no keys yet (the server generates them at its first start)")
                continue
            }
            print("\(kind.rawValue) public_key \(pair.publicKey)\n\(kind.rawValue) private_key \(pair.privateKey)")
        }
    }
}
