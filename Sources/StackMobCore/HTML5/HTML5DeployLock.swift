import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// One environment's deploys, rollbacks and promotes, one at a time, whichever process runs them
/// (the admin API, `stackmob-server html5`, another instance on the same data directory): an
/// exclusive `flock` on `<data_dir>/html5/<env>/.lock`. A `flock` belongs to an open file, so two
/// calls in one process exclude each other as two processes do. Instances on several machines
/// share it only where their file system carries `flock` between machines (NFS on Linux does,
/// unless mounted with `local_lock`). Without it, two deploys at once could point `current` at
/// their versions in the opposite order of their numbers, and leave the older one served while
/// both answered; a prune beside a rollback could remove what it switched to.
///
/// The lock is tried, never waited for: a second action while one runs is refused
/// (`HTML5Error.busy`, a 409 over the admin API) rather than holding one of the server's threads
/// for as long as the first one copies a site. The kernel releases the lock with its descriptor,
/// so a process that dies holding it holds it no more.
///
/// What a holder makes on its way and renames or removes before it lets go (a staging
/// directory, an unpacked upload, a `current` link not yet renamed) is left only by a crash, or
/// is being made by a process that takes no lock (a server of an earlier version, during a
/// rolling upgrade). The next holder moves each out of the way under a name of its own before it
/// removes it (`sweep`): the other process's next step on that name then fails, and its deploy
/// with it, so nothing it left half-made is ever published or served.
enum HTML5DeployLock {
    /// Names only a lock holder makes, in the environment's directory and in `versions/`.
    static let unfinishedPrefixes = [".upload-", ".current-", ".staging-", ".pruned-"]

    /// Runs `body` holding the lock of `environment`, a directory made (durably with `disk`)
    /// when it does not exist; throws `HTML5Error.busy(kind)` when another holds it.
    static func holding<T>(_ environment: URL, kind: EnvironmentKind, disk: DiskSync, _ body: () throws -> T) throws -> T {
        do {
            try PrivateFiles.createDirectory(atPath: environment.path, disk: disk)
        } catch {
            throw HTML5Error.storageFailed(error.localizedDescription)
        }
        let descriptor = open(environment.appendingPathComponent(".lock").path, O_RDONLY | O_CREAT | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw HTML5Error.storageFailed("cannot open the deploy lock (errno \(errno))") }
        // Closing the descriptor is what releases the lock.
        defer { close(descriptor) }
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
            let code = errno
            if code == EWOULDBLOCK { throw HTML5Error.busy(kind) }
            throw HTML5Error.storageFailed("cannot lock the environment's versions (errno \(code))")
        }
        sweep(environment, disk: disk)
        return try body()
    }

    /// Moves what another holder left unfinished out of the way, then removes it. None of it is
    /// served or counted as a version, so a removal that fails is only retried by the next
    /// holder. The renames are synced before anything is removed: a `.pruned-*` name that never
    /// reached the disk would otherwise come back after a power loss as a version number, with
    /// part of its files gone.
    private static func sweep(_ environment: URL, disk: DiskSync) {
        let manager = FileManager.default
        for directory in [environment, environment.appendingPathComponent("versions", isDirectory: true)] {
            let names = (try? manager.contentsOfDirectory(atPath: directory.path)) ?? []
            let leftovers = names.filter { name in unfinishedPrefixes.contains(where: { name.hasPrefix($0) }) }
            guard !leftovers.isEmpty else { continue }
            for name in leftovers where !name.hasPrefix(".pruned-") {
                _ = rename(directory.appendingPathComponent(name).path, directory.appendingPathComponent(".pruned-\(UUID().uuidString)").path)
            }
            guard (try? disk.syncDirectory(atPath: directory.path)) != nil else { continue }
            for name in (try? manager.contentsOfDirectory(atPath: directory.path)) ?? [] where name.hasPrefix(".pruned-") {
                try? manager.removeItem(at: directory.appendingPathComponent(name))
            }
        }
    }
}
