import Foundation
import StackMobCore
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// The `stackmob-server` executable (or another program the tests need, such as the example
/// webhook), spawned as a user would run it.
///
/// Spawned with `posix_spawn` rather than Foundation's `Process`: the test runner holds
/// thousands of descriptors while suites run in parallel, and `Process.run` crashed under that
/// load. Here the child gets only stdin and one pipe for stdout and stderr (every other
/// descriptor is closed, with glibc's `closefrom` spawn action), default signal handling (the runner ignores SIGTERM, which
/// swift-service-lifecycle handles itself) and an empty signal mask.
public final class ServerProcess: Sendable {
    private let pid: pid_t
    private let output = OutputBuffer()
    private let exitStatus = Mutex<Int32?>(nil)

    /// Where `swift build` / `swift test` put the executable: beside the test bundle.
    public static var executableURL: URL {
        URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("stackmob-server")
    }

    /// Starts `executable` (by default the server) with `arguments`, in `directory`, with only
    /// the given environment variables (so the developer's own `STACKMOB_…` variables cannot
    /// leak in).
    public init(executable: URL = executableURL, arguments: [String], directory: String, environment: [String: String] = [:]) throws {
        var fds: [Int32] = [0, 0]
        guard pipe(&fds) == 0 else { throw SpawnError(call: "pipe", code: errno) }
        let (readEnd, writeEnd) = (fds[0], fds[1])
        _ = fcntl(readEnd, F_SETFD, FD_CLOEXEC)
        _ = fcntl(writeEnd, F_SETFD, FD_CLOEXEC)

        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, writeEnd, STDOUT_FILENO)
        posix_spawn_file_actions_adddup2(&actions, writeEnd, STDERR_FILENO)
        _ = GlibcSpawnExtensions.closeFrom?(&actions, 3)
        guard let changeDirectory = GlibcSpawnExtensions.changeDirectory else {
            throw SpawnError(call: "posix_spawn_file_actions_addchdir_np", code: ENOSYS)
        }
        _ = changeDirectory(&actions, directory)

        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for signal in [SIGTERM, SIGINT, SIGHUP, SIGPIPE] { sigaddset(&defaults, signal) }
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        var noMask = sigset_t()
        sigemptyset(&noMask)
        posix_spawnattr_setsigmask(&attributes, &noMask)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK))

        var environment = environment.merging(["PATH": "/usr/bin:/bin"]) { mine, _ in mine }
        if let url = TestServer.postgreSQLURL, environment["STACKMOB_STORAGE__ENGINE"] == nil {
            // The PostgreSQL run of the suite: the binary (also when a shell starts it) keeps its
            // data there too, in the schemas of its data directory (as `TestServer` names them),
            // else of its working one. Other programs ignore these variables.
            let dataDirectory = arguments.firstIndex(of: "--data-dir").flatMap { arguments.indices.contains($0 + 1) ? arguments[$0 + 1] : nil }
            environment["STACKMOB_STORAGE__ENGINE"] = "postgresql"
            environment["STACKMOB_STORAGE__POSTGRESQL__URL"] = url
            environment["STACKMOB_STORAGE__POSTGRESQL__SCHEMA_PREFIX"] = TestServer.schemaPrefix(for: dataDirectory ?? directory)
        }
        if TestServer.http1Channel != .native, environment["STACKMOB_LISTEN__HTTP1_CHANNEL"] == nil {
            // The Hummingbird-channel run of the suite: the binary serves on that channel too.
            environment["STACKMOB_LISTEN__HTTP1_CHANNEL"] = TestServer.http1Channel.rawValue
        }
        let argv = ([executable.path] + arguments).map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { for pointer in argv + envp { free(pointer) } }
        var pid = pid_t()
        let spawned = posix_spawn(&pid, executable.path, &actions, &attributes, argv, envp)
        close(writeEnd)
        guard spawned == 0 else {
            close(readEnd)
            throw SpawnError(call: "posix_spawn \(executable.path)", code: spawned)
        }
        self.pid = pid
        // A thread of its own reads the pipe until the process (and whatever it started) has
        // closed it, then closes it. Not `FileHandle.readabilityHandler`: that is a libdispatch
        // source, and libdispatch on Linux crashes (`_dispatch_event_loop_drain`, a bad pointer)
        // when a descriptor it watched is closed and its number reused while the source's
        // cancellation is still pending, which suites running in parallel did once in CI.
        let output = self.output
        Thread {
            var buffer = [UInt8](repeating: 0, count: 64 * 1024)
            while true {
                let count = read(readEnd, &buffer, buffer.count)
                if count > 0 {
                    output.append(Data(buffer[..<count]))
                } else if count < 0 && errno == EINTR {
                    continue
                } else {
                    break
                }
            }
            close(readEnd)
        }.start()
    }

    /// Everything the process printed so far.
    public var log: String { output.text.withLock { $0 } }

    public var processID: pid_t { pid }

    /// The process's heap and stacks (`RssAnon` of /proc/<pid>/status), KiB: what a leak grows.
    public func anonymousResidentKiB() throws -> Int {
        try status("RssAnon")
    }

    /// The most memory the process has held at once (`VmHWM` of /proc/<pid>/status), KiB.
    public func peakResidentKiB() throws -> Int {
        try status("VmHWM")
    }

    /// A figure of /proc/<pid>/status, in its unit.
    private func status(_ name: String) throws -> Int {
        let status = try String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)
        guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix(name + ":") }),
            let value = Int(line.split(separator: " ", omittingEmptySubsequences: true)[1])
        else { throw TestFailure("no \(name) in /proc/\(pid)/status") }
        return value
    }

    /// Whether the process is still running (reaps it once it has ended).
    public var isRunning: Bool {
        exitStatus.withLock { status in
            guard status == nil else { return false }
            var raw: Int32 = 0
            guard waitpid(pid, &raw, WNOHANG) == pid else { return true }
            // Exit code, or 128 + the signal that ended it, as a shell reports it.
            let signal = raw & 0x7f
            status = signal == 0 ? (raw >> 8) & 0xff : 128 + signal
            return false
        }
    }

    /// Waits until the log contains `text`, or the process ends, or `timeout` passes.
    public func waitForLog(containing text: String, timeout: Duration = .seconds(30)) async throws -> Bool {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if log.contains(text) { return true }
            if !isRunning { return log.contains(text) }
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

    /// Sends `signal` (SIGTERM unless said otherwise) and waits for the exit status.
    /// Sends `signal` without waiting for the process to end.
    public func send(signal: Int32) {
        if isRunning { kill(pid, signal) }
    }

    public func terminate(signal: Int32 = SIGTERM) async -> Int32 {
        if isRunning { kill(pid, signal) }
        return await waitForExit()
    }

    /// Waits for the exit status; kills the process if it has not ended within `timeout`.
    public func waitForExit(timeout: Duration = .seconds(30)) async -> Int32 {
        let deadline = ContinuousClock.now + timeout
        while isRunning, ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(20))
        }
        if isRunning {
            kill(pid, SIGKILL)
            while isRunning { try? await Task.sleep(for: .milliseconds(5)) }
        }
        // Let the reader drain what the process printed last.
        try? await Task.sleep(for: .milliseconds(50))
        return exitStatus.withLock { $0 ?? -1 }
    }

    struct SpawnError: Error, CustomStringConvertible {
        let call: String
        let code: Int32
        var description: String { "\(call) failed: \(String(cString: strerror(code)))" }
    }
}

/// glibc's spawn extensions (2.29+, 2.34+), which Swift's Glibc module does not declare
/// (they need `_GNU_SOURCE`): looked up by name in the C library already loaded.
private enum GlibcSpawnExtensions {
    typealias CloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
    typealias ChangeDirectory = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, UnsafePointer<CChar>) -> Int32

    static var closeFrom: CloseFrom? { symbol("posix_spawn_file_actions_addclosefrom_np") }
    static var changeDirectory: ChangeDirectory? { symbol("posix_spawn_file_actions_addchdir_np") }

    private static func symbol<Function>(_ name: String) -> Function? {
        // A nil handle is RTLD_DEFAULT: every object already loaded, libc among them.
        dlsym(nil, name).map { unsafeBitCast($0, to: Function.self) }
    }
}

private final class OutputBuffer: Sendable {
    let text = Mutex("")

    func append(_ data: Data) {
        text.withLock { $0 += String(decoding: data, as: UTF8.self) }
    }
}
