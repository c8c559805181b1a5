#if canImport(Glibc)
    import CMalloc
#endif

/// glibc's allocator, set for a server that allocates and frees the same few kilobytes on every
/// request.
///
/// By default an arena gives the free memory at the top of its heap back to the kernel as soon
/// as there is a little of it, and the next request faults the same pages in again: four page
/// faults per `HEAD /` under load, each a trip into the kernel that zeroes a page. Keeping
/// 16 MiB of slack at the top of each heap (`M_TOP_PAD`) ends the back and forth. The price is
/// that memory, once touched under load, stays resident; peak memory is unchanged.
/// `M_TRIM_THRESHOLD` would do it too, but setting it also pins the mmap threshold at 128 KiB,
/// so every larger buffer would be mapped and unmapped each time.
enum MallocTuning {
    static func apply() {
        #if canImport(Glibc)
            _ = mallopt(M_TOP_PAD, 16 << 20)
        #endif
    }
}
