@testable import StackMobPostgres
import Testing

/// PostgreSQL cuts identifiers past 63 bytes without an error; the engine shortens index names
/// itself, the same way in every process. Pure: needs no database.
@Suite("PostgreSQL index names")
struct PostgresIndexNameTests {
    @Test("index names longer than PostgreSQL's 63 bytes keep their start and end in a hash of the whole name")
    func shortenedIdentifiers() {
        #expect(PostgresIndexStatements.identifier("_sm_idx_todo.due") == "_sm_idx_todo.due")
        let long = "_sm_idx_measurement.recorded_at_the_weather_station_in_local_time."
        let celsius = PostgresIndexStatements.identifier(long + "temperature_in_degrees_celsius")
        let fahrenheit = PostgresIndexStatements.identifier(long + "temperature_in_degrees_fahrenheit")
        #expect(celsius != fahrenheit)
        #expect(celsius.utf8.count <= 63 && fahrenheit.utf8.count <= 63)
        #expect(celsius.hasPrefix("_sm_idx_measurement.recorded_at"))
        // The same in every process: a later start finds the index it created.
        #expect(celsius == "_sm_idx_measurement.recorded_at_the_weather_st~c09995ae4cef3238")
        #expect(PostgresIndexStatements.identifier("_sm_idx_é" + String(repeating: "x", count: 80)).utf8.count <= 63)
    }
}
