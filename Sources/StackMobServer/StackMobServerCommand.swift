import ArgumentParser

@main
struct StackMobServerCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stackmob-server",
        abstract: "A self-hostable server that speaks the StackMob REST API.",
        subcommands: [
            ServeCommand.self, OutboxCommand.self, SchemaCommand.self, DeployCommand.self, AdminCommand.self, HTML5Command.self,
            ExportCommand.self, ImportCommand.self, BackupCommand.self, RestoreCommand.self, ResetCommand.self, KeysCommand.self,
        ],
        defaultSubcommand: ServeCommand.self)
}
