/// Scheduled online backups (`backups.*`): every `intervalSeconds`, each environment's database is
/// copied (`VACUUM INTO`, a consistent snapshot while the server serves writes) into `directory`,
/// keeping the newest `keep` copies of each environment.
public struct BackupSettings: Sendable, Equatable {
    /// 0 = no scheduled backups (the default); `stackmob-server backup` still works.
    public var intervalSeconds = 0
    /// Copies kept per environment; older ones are deleted after each new copy.
    public var keep = 7
    /// Nil = `<data_dir>/backups`.
    public var directory: String?

    public init() {}

    /// Where the copies go.
    public func directory(dataDirectory: String) -> String {
        directory ?? (dataDirectory as NSString).appendingPathComponent("backups")
    }
}

import Foundation
