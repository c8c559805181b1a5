#if canImport(Glibc)
    import CMalloc
#endif
import Foundation

/// glibc's allocator, set for a server that allocates and frees the same few kilobytes on every
/// request.
///
/// **Arenas.** glibc gives a thread that finds the arenas in use a new one, up to eight per core,
/// and memory freed into one arena is not reused by the others: after a burst of varied
/// requests, every arena keeps what it once held (and its 16 MiB of top pad, below), so
/// resident memory can stay at a multiple of what the server needs, more so the more cores.
/// Two arenas per core (`M_ARENA_MAX`) bound that, and leave each event loop and the threads
/// working beside it an arena to themselves: with two in all, creates and updates ran 15–20%
/// slower on two cores, the threads waiting on the arenas' locks (docs/benchmarks.md, "Memory
/// that returns"). An operator who sets `MALLOC_ARENA_MAX` (or the glibc tunable
/// `glibc.malloc.arena_max`) decides instead: glibc reads it, and it is left alone here.
///
/// **Top pad.** By default an arena gives the free memory at the top of its heap back to the
/// kernel as soon as there is a little of it, and the next request faults the same pages in
/// again: four page faults per `HEAD /` under load, each a trip into the kernel that zeroes a
/// page. Keeping 16 MiB of slack at the top of each heap (`M_TOP_PAD`) ends the back and forth,
/// at most 16 MiB an arena. `M_TRIM_THRESHOLD` would do it too, but setting it also pins the
/// mmap threshold at 128 KiB, so every larger buffer would be mapped and unmapped each time.
enum MallocTuning {
    static var arenas: Int32 { Int32(clamping: max(2, 2 * ProcessInfo.processInfo.activeProcessorCount)) }

    /// Before the server starts its threads: arenas made before it stay.
    static func apply(environment: [String: String]) {
        #if canImport(Glibc)
            _ = mallopt(M_TOP_PAD, 16 << 20)
            if leavesArenasToGlibc(environment: environment) { return }
            _ = mallopt(M_ARENA_MAX, arenas)
        #endif
    }

    static func leavesArenasToGlibc(environment: [String: String]) -> Bool {
        environment["MALLOC_ARENA_MAX"] != nil || environment["GLIBC_TUNABLES"]?.contains("arena_max") == true
    }
}
