import HTTPTypes

/// StackMob's headers (PROTOCOL §2.4), in their canonical case.
extension HTTPField.Name {
    static let stackMobTimeMS = Self("X-StackMob-Time-MS")!
    static let stackMobAPIKey = Self("X-StackMob-API-Key")!
    static let stackMobRelations = Self("X-StackMob-Relations")!
    static let httpMethodOverride = Self("X-HTTP-Method-Override")!
    static let stackMobOrderBy = Self("X-StackMob-OrderBy")!
    static let stackMobSelect = Self("X-StackMob-Select")!
    static let stackMobExpand = Self("X-StackMob-Expand")!
    static let stackMobCascadeDelete = Self("X-StackMob-CascadeDelete")!
    static let stackMobFieldTypes = Self("X-StackMob-FieldTypes")!
    static let stackMobUserAgent = Self("X-StackMob-User-Agent")!
    static let xForwardedProto = Self("X-Forwarded-Proto")!
    static let xForwardedPort = Self("X-Forwarded-Port")!
    static let range = Self("Range")!
    static let contentRange = Self("Content-Range")!
}
