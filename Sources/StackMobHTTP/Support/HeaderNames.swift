import HTTPTypes

/// StackMob's headers (PROTOCOL §2.4), in their canonical case.
extension HTTPField.Name {
    static let stackMobTimeMS = Self("X-StackMob-Time-MS")!
    static let stackMobAPIKey = Self("X-StackMob-API-Key")!
    static let stackMobRelations = Self("X-StackMob-Relations")!
    static let httpMethodOverride = Self("X-HTTP-Method-Override")!
}
