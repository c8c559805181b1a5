import Foundation
import Synchronization

/// The `stackmob-server` executable, spawned as a user would run it.
public final class ServerProcess: Sendable {
    private let process: Process
    private let output = OutputBuffer()

    /// Where `swift build` / `swift test` put the executable: beside the test bundle.
    public static var executableURL: URL {
        URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("stackmob-server")
    }

    /// Starts the executable with `arguments`, in `directory`, with only the given environment
    /// variables (so the developer's own `STACKMOB_…` variables cannot leak in).
    public init(arguments: [String], directory: String, environment: [String: String] = [:]) throws {
        process = Process()
        process.executableURL = Self.executableURL
        process.arguments = arguments
        process.currentDirectoryURL = URL(fileURLWithPath: directory)
        process.environment = environment.merging(["PATH": "/usr/bin:/bin"]) { mine, _ in mine }
        let pipe = Pipe()
        process.standardError = pipe
        process.standardOutput = pipe
        let output = self.output
        pipe.fileHandleForReading.readabilityHandler = { handle in
            output.append(handle.availableData)
        }
        try process.run()
    }

    /// Everything the process printed so far.
    public var log: String { output.text.withLock { $0 } }

    /// Waits until the log contains `text`, or the process ends, or `timeout` passes.
    public func waitForLog(containing text: String, timeout: Duration = .seconds(30)) async throws -> Bool {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if log.contains(text) { return true }
            if !process.isRunning { return log.contains(text) }
            try await Task.sleep(for: .milliseconds(20))
        }
        return false
    }

    /// The API port, from Hummingbird's "listening on host:port" line (not the push host's,
    /// whose line carries `sm.listener=push`).
    public func listeningPort() async throws -> Int? {
        let isAPI: (Substring) -> Bool = { $0.contains("listening on") && !$0.contains("sm.listener=push") }
        let deadline = ContinuousClock.now + .seconds(30)
        while !log.split(separator: "\n").contains(where: isAPI), ContinuousClock.now < deadline {
            guard try await waitForLog(containing: "listening on") else { return nil }
            try await Task.sleep(for: .milliseconds(20))
        }
        let line = log.split(separator: "\n").first(where: isAPI) ?? ""
        return line.split(separator: ":").last.flatMap { Int($0.trimmingCharacters(in: .whitespaces)) }
    }

    /// Sends SIGTERM and waits for the exit status.
    public func terminate() async -> Int32 {
        if process.isRunning { process.terminate() }
        return await waitForExit()
    }

    public func waitForExit(timeout: Duration = .seconds(30)) async -> Int32 {
        let deadline = ContinuousClock.now + timeout
        while process.isRunning, ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(20))
        }
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
        return process.terminationStatus
    }
}

private final class OutputBuffer: Sendable {
    let text = Mutex("")

    func append(_ data: Data) {
        text.withLock { $0 += String(decoding: data, as: UTF8.self) }
    }
}
