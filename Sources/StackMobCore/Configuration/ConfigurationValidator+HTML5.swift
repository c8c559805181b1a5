/// Checks of the `html5` keys: ports that cannot collide, host patterns that can match.
extension ConfigurationValidator {
    static func validateHTML5(_ configuration: StackMobConfiguration) throws {
        var taken: [(port: Int, key: String)] = [(configuration.port, "listen.port")]
        if configuration.push.listen { taken.append((configuration.push.port, "push.port")) }
        var hostOwners: [String: String] = [:]
        for kind in EnvironmentKind.allCases {
            let prefix = "html5.\(kind.rawValue)"
            let site = configuration.html5.site(for: kind)
            if site.listen, site.port != 0 {
                if let clash = taken.first(where: { $0.port == site.port }) {
                    throw ConfigurationError(key: "\(prefix).port", "must differ from \(clash.key) (\(site.port))")
                }
                taken.append((site.port, "\(prefix).port"))
            }
            for (index, host) in site.hosts.enumerated() {
                let key = "\(prefix).hosts[\(index)]"
                let name = host.hasPrefix("*.") ? String(host.dropFirst(2)) : host
                guard !name.isEmpty, name.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "-" || $0 == "." }), !name.hasPrefix("."), !name.hasSuffix(".")
                else {
                    throw ConfigurationError(key: key, "'\(host)' must be a host name (no scheme, port or path), or *. followed by one")
                }
                if let owner = hostOwners[host.lowercased()] {
                    throw ConfigurationError(key: key, "'\(host)' is already listed in \(owner)")
                }
                hostOwners[host.lowercased()] = key
            }
        }
    }
}
