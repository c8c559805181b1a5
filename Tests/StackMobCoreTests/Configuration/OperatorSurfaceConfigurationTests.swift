import Foundation
import Testing

import StackMobCore

/// `admin.*`, `listen.trusted_proxies` and `html5.deploy_root`: read, defaulted and checked.
@Suite("Configuration: the operator surface, trusted proxies, the deploy root")
struct OperatorSurfaceConfigurationTests {
    @Test("the keys are read from environment variables, with their defaults otherwise")
    func readsKeys() throws {
        let defaults = try ConfigurationLoader.load(file: nil, environment: [:])
        #expect(defaults.admin == AdminSettings())
        #expect(defaults.admin.onAPIPort && defaults.admin.port == nil && defaults.admin.host == "127.0.0.1")
        #expect(defaults.trustedProxies == .loopback && defaults.html5.deployRoot == nil)
        // Reset: development in CI mode only; production never unless listed.
        #expect(defaults.admin.resettable(ciMode: false).isEmpty)
        #expect(defaults.admin.resettable(ciMode: true) == [.development])
        let configuration = try ConfigurationLoader.load(
            file: nil,
            environment: [
                "STACKMOB_ADMIN__ON_API_PORT": "false", "STACKMOB_ADMIN__PORT": "8090", "STACKMOB_ADMIN__HOST": "10.0.0.5",
                "STACKMOB_ADMIN__RESET_ENVIRONMENTS": "[\"production\"]", "STACKMOB_LISTEN__TRUSTED_PROXIES": "[\"10.0.0.0/8\", \"fd00::/8\"]",
                "STACKMOB_HTML5__DEPLOY_ROOT": "/srv/sites",
            ])
        #expect(!configuration.admin.onAPIPort && configuration.admin.port == 8090 && configuration.admin.host == "10.0.0.5")
        #expect(configuration.admin.resettable(ciMode: true) == [.production])
        #expect(configuration.trustedProxies.entries == ["10.0.0.0/8", "fd00::/8"])
        #expect(configuration.html5.deployRoot == "/srv/sites")
    }

    @Test("bad values stop start-up naming the key", arguments: [
        (["STACKMOB_ADMIN__PORT": "8080"], "configuration key 'admin.port': must differ from listen.port (8080)"),
        (["STACKMOB_ADMIN__RESET_ENVIRONMENTS": "[\"staging\"]"], "configuration key 'admin.reset_environments[0]'"),
        (["STACKMOB_LISTEN__TRUSTED_PROXIES": "[\"10.0.0.0/33\"]"], "configuration key 'listen.trusted_proxies': '10.0.0.0/33'"),
        (["STACKMOB_LISTEN__TRUSTED_PROXIES": "[\"proxy.local\"]"], "configuration key 'listen.trusted_proxies': 'proxy.local'"),
        (["STACKMOB_HTML5__DEPLOY_ROOT": "/", "STACKMOB_DATA_DIR": "/var/lib/sm"], "configuration key 'html5.deploy_root': must not be the data directory"),
        (["STACKMOB_HTML5__DEPLOY_ROOT": "/var/lib/sm", "STACKMOB_DATA_DIR": "/var/lib/sm"], "configuration key 'html5.deploy_root'"),
    ])
    func refusesBadValues(variables: [String: String], message: String) {
        #expect {
            _ = try ConfigurationLoader.load(file: nil, environment: variables)
        } throws: { error in
            "\(error)".contains(message)
        }
    }

    @Test("a trusted proxy's forwarded chain names the nearest untrusted hop; an untrusted peer is the client", arguments: [
        ("127.0.0.1", ["203.0.113.9"], "203.0.113.9", true),
        ("127.0.0.1", ["198.51.100.1, 203.0.113.9"], "203.0.113.9", true),
        ("127.0.0.1", ["203.0.113.9", "127.0.0.2"], "203.0.113.9", true),
        ("::1", ["[2001:db8::1]:443"], "2001:db8::1", true),
        ("::ffff:127.0.0.1", ["203.0.113.9:5555"], "203.0.113.9", true),
        ("203.0.113.50", ["127.0.0.1"], "203.0.113.50", false),
        ("127.0.0.1", [], "127.0.0.1", false),
        ("127.0.0.1", ["unknown"], "127.0.0.1", true),
    ])
    func forwardedClient(peer: String, forwardedFor: [String], client: String, forwarded: Bool) {
        let result = TrustedProxies.loopback.client(peer: peer, forwardedFor: TrustedProxies.hops(xForwardedFor: forwardedFor, forwarded: []))
        #expect(result.address == client && result.forwarded == forwarded)
    }

    @Test("Forwarded's for= parameters are read when X-Forwarded-For is absent")
    func forwardedHeader() throws {
        #expect(TrustedProxies.hops(xForwardedFor: [], forwarded: ["for=192.0.2.60;proto=https;by=203.0.113.43, for=\"[2001:db8:cafe::17]:4711\""])
            == ["192.0.2.60", "[2001:db8:cafe::17]:4711"])
        let proxies = try TrustedProxies(["10.0.0.0/8"])
        #expect(proxies.contains("10.200.3.4") && !proxies.contains("11.0.0.1") && !proxies.contains("::1"))
    }
}
