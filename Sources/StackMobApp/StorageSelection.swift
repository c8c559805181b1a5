import Logging
import StackMobCore
import StackMobPostgres
import StackMobSQLite

/// The engine the configuration names (`storage.engine`): the one place that knows them all.
public enum StorageSelection {
    public static func provider(for configuration: StackMobConfiguration, logger: Logger) throws -> any StorageProvider {
        switch configuration.storage.engine {
        case .sqlite:
            return SQLiteStorageProvider(dataDirectory: configuration.dataDirectory, durability: configuration.durability, logger: logger)
        case .postgresql:
            return PostgresStorageProvider(settings: configuration.storage.postgresql, logger: logger)
        }
    }
}
