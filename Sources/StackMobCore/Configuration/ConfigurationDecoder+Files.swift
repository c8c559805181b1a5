/// The `files` section (binary fields, PROTOCOL §7).
extension ConfigurationDecoder {
    func files() throws -> FileSettings {
        try refuseUnknownKeys(["max_bytes", "base_url", "store", "s3"])
        var settings = FileSettings()
        settings.maxBytes = try integer("max_bytes", in: 1...Int(Int32.max)) ?? settings.maxBytes
        // Known only to say where it went: one base for both environments made their URLs
        // collide once D32 dropped the environment segment.
        if try string("base_url") != nil {
            throw ConfigurationError(key: keyPath("base_url"), "has moved: set environments.<env>.files_base_url, one base per environment")
        }
        settings.store = try choice("store", FileSettings.Store.self) ?? settings.store
        if let s3 = try section("s3") {
            try s3.refuseUnknownKeys(["endpoint", "bucket", "region", "access_key_id", "secret_access_key"])
            func required(_ key: String) throws -> String {
                guard let value = try s3.string(key), !value.isEmpty else {
                    throw ConfigurationError(key: s3.keyPath(key), "is required when files.s3 is given")
                }
                return value
            }
            settings.s3 = S3Settings(
                endpoint: try required("endpoint"), bucket: try required("bucket"), region: try s3.string("region") ?? "us-east-1",
                accessKeyID: try required("access_key_id"), secretAccessKey: try required("secret_access_key"))
        }
        return settings
    }
}
