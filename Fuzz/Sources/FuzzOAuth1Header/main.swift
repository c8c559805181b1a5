import Foundation
import FuzzDriver
import StackMobCore

// `Authorization: OAuth realm="…",oauth_consumer_key="…",…` (OAuth 1.0 signed requests).
// Mirrored by OAuth1HeaderFuzzCorpusTests in Tests/StackMobCoreTests/Auth.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let header = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    if let authorization = OAuth1Authorization.parse(header) { _ = authorization.timestamp }
    return 0
}

exit(stackmob_fuzz_run(CommandLine.argc, CommandLine.unsafeArgv))
