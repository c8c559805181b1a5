import ArgumentParser
import NIOCore
import NIOPosix

@main
struct StackMobServerCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stackmob-server",
        abstract: "A self-hostable server that speaks the StackMob REST API.",
        subcommands: [
            ServeCommand.self, OutboxCommand.self, SchemaCommand.self, DeployCommand.self, AdminCommand.self, HTML5Command.self,
            ExportCommand.self, ImportCommand.self, BackupCommand.self, RestoreCommand.self, ResetCommand.self,
        ],
        defaultSubcommand: ServeCommand.self)

    /// Swift concurrency's jobs run on NIO's event loops, the threads that read and write the
    /// connections (and PostgreSQL's), instead of on a pool of their own: without this, every
    /// request crosses from an event loop to the pool and its answer back, two thread switches
    /// that cost more CPU than the trivial route's own work (issue 19's profile). It must happen
    /// before anything runs on the pool, hence here, first; it is NIO's documented way to do it.
    static func main() async {
        NIOSingletons.unsafeTryInstallSingletonPosixEventLoopGroupAsConcurrencyGlobalExecutor()
        await main(nil)
    }
}
