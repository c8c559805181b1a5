import Foundation
import FuzzDriver
@testable import StackMobCore

// `Authorization: MAC id="…",ts="…",nonce="…",mac="…"`, and the request-uri, Host and proxy
// headers a MAC is checked against. Mirrored by MACHeaderFuzzCorpusTests in
// Tests/StackMobCoreTests/Auth.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let header = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    _ = MACAuthorization.parse(header)
    _ = MACCandidates.requestURIs(target: header)
    _ = MACCandidates.hostAndPorts(host: header, forwardedProto: "https", forwardedPort: header)
    return 0
}

exit(stackmob_fuzz_run(CommandLine.argc, CommandLine.unsafeArgv))
