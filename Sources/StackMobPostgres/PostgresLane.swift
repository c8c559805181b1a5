import Logging
import NIOCore
import PostgresNIO
import Synchronization

/// The share of an environment's pool whose connections live on one event loop (`PostgresPool`).
final class PostgresLane: Sendable {
    let loop: any EventLoop
    let client: PostgresClient
    /// Connections this lane keeps open.
    let size: Int
    /// Leases held or waited for: more than `size` means callers are queueing.
    let leases = Atomic<Int>(0)

    init(loop: any EventLoop, size: Int, configuration: PostgresClient.Configuration, logger: Logger) {
        self.loop = loop
        self.size = size
        client = PostgresClient(configuration: configuration, eventLoopGroup: loop, backgroundLogger: logger)
    }

    /// `poolSize` connections over `loops` lanes, as evenly as they go, and one lane at least:
    /// with fewer connections than loops, the last loops get none of their own and borrow.
    static func sizes(poolSize: Int, loops: Int) -> [Int] {
        let lanes = max(1, min(poolSize, loops))
        return (0..<lanes).map { poolSize / lanes + ($0 < poolSize % lanes ? 1 : 0) }
    }

    /// The lane to lease from for a caller on `current` (`choice`).
    static func choose(from lanes: [PostgresLane], current: (any EventLoop)?) -> PostgresLane {
        let own = current.flatMap { current in lanes.firstIndex { $0.loop === current } }
        if let own, lanes[own].free > 0 { return lanes[own] }
        return lanes[choice(own: own, free: lanes.map(\.free))]
    }

    /// Connections not leased: negative when callers queue.
    private var free: Int { size - leases.load(ordering: .relaxed) }

    /// Of lanes with `free` connections each (negative when callers queue), the caller's own,
    /// unless it has none free and another has: then the one with the most free. When every lane
    /// is busy the caller queues on its own, which answers it as soon as any other would. A
    /// caller off every lane's loop (start-up, CLI tasks, background work) takes the one with the
    /// most free.
    static func choice(own: Int?, free: [Int]) -> Int {
        if let own, free[own] > 0 { return own }
        let most = free.indices.max { free[$0] < free[$1] } ?? 0
        if let own, free[most] <= 0 { return own }
        return most
    }
}
