import Foundation
import FuzzDriver
@testable import StackMobHTTP

// The Accept header's `version=N`, which picks the environment of every request.
// Mirrored by AcceptFuzzCorpusTests in Tests/StackMobHTTPTests/Fuzz.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let header = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    _ = APIVersion.parse(accept: header)
    return 0
}

exit(stackmob_fuzz_run(CommandLine.argc, CommandLine.unsafeArgv))
