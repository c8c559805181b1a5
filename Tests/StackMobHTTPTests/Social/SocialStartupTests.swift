import Foundation
import StackMobTestSupport
import Testing

@Suite("Social: start-up validation of the binary")
struct SocialStartupTests {
    @Test("a provider without its secret stops start-up with exit code 78 naming the key")
    func incompleteProvider() async throws {
        try await TestServer.withDataDirectory { directory in
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            let server = try ServerProcess(
                arguments: ["serve", "--port", "0"], directory: directory,
                environment: ["STACKMOB_ENVIRONMENTS__PRODUCTION__SOCIAL__FACEBOOK__APP_ID": "1234"])
            #expect(await server.waitForExit() == 78)
            #expect(
                server.log.contains(
                    "configuration key 'environments.production.social.facebook.app_secret': is required when social.facebook is given"))
        }
    }
}
