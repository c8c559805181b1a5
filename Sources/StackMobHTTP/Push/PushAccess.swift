import StackMobCore

/// Who may do what on the push host (D12): the private key everything; the public key alone
/// may register and remove tokens where the environment allows it.
enum PushAccess {
    static func requirePrivateKey(_ context: StackMobRequestContext) throws(PushError) {
        guard context.caller.isPrivateKey else { throw .privateKeyRequired }
    }

    static func requireRegistration(_ context: StackMobRequestContext, environment: AppEnvironment) throws(PushError) {
        guard context.caller.isPrivateKey || environment.settings.push.publicRegistration else { throw .publicRegistrationDisabled }
    }
}
