import Foundation
import FuzzDriver
@testable import StackMobHTTP

// x-www-form-urlencoded bodies: the token endpoints' (which also take a JSON object) and the web
// console's forms. Mirrored by FormBodyFuzzCorpusTests in Tests/StackMobHTTPTests/Fuzz.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    _ = try? FormBody.parameters(body: bytes)
    _ = ConsoleForm(encoded: String(decoding: bytes, as: UTF8.self))
    return 0
}

exit(stackmob_fuzz_run(CommandLine.argc, CommandLine.unsafeArgv))
