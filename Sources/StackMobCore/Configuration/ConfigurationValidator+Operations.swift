import Foundation

/// Checks of the operator's keys that span several keys.
extension ConfigurationValidator {
    static func validateOperations(_ configuration: StackMobConfiguration) throws {
        var taken = [(configuration.port, "listen.port")]
        if configuration.push.listen { taken.append((configuration.push.port, "push.port")) }
        for kind in EnvironmentKind.allCases where configuration.html5.site(for: kind).listen {
            taken.append((configuration.html5.site(for: kind).port, "html5.\(kind.rawValue).port"))
        }
        if configuration.monitoring.enabled, let port = configuration.monitoring.port, port != 0 {
            for (other, key) in taken where other == port {
                throw ConfigurationError(key: "monitoring.port", "must differ from \(key) (\(port)); leave it null to serve monitoring on the API port")
            }
            taken.append((port, "monitoring.port"))
        }
        if let port = configuration.admin.port, port != 0 {
            for (other, key) in taken where other == port {
                throw ConfigurationError(key: "admin.port", "must differ from \(key) (\(port))")
            }
        }
        if configuration.admin.host.isEmpty {
            throw ConfigurationError(key: "admin.host", "must not be empty")
        }
        if let root = configuration.html5.deployRoot {
            guard !root.isEmpty else { throw ConfigurationError(key: "html5.deploy_root", "must not be empty; leave it null to deploy archives only") }
            if DeployRoot.encloses(root, configuration.dataDirectory) {
                throw ConfigurationError(key: "html5.deploy_root", "must not be the data directory or hold it: a deploy would publish the keys and databases")
            }
        }
    }
}
