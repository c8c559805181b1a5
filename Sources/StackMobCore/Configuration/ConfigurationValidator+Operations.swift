/// Checks of the operator's keys (issue 17) that span several keys.
extension ConfigurationValidator {
    static func validateOperations(_ configuration: ServerConfiguration) throws {
        guard configuration.monitoring.enabled, let port = configuration.monitoring.port, port != 0 else { return }
        var taken = [(configuration.port, "listen.port")]
        if configuration.push.listen { taken.append((configuration.push.port, "push.port")) }
        for (other, key) in taken where other == port {
            throw ConfigurationError(key: "monitoring.port", "must differ from \(key) (\(port)); leave it null to serve monitoring on the API port")
        }
    }
}
