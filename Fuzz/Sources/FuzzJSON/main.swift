import Foundation
import FuzzDriver
import StackMobCore

// JSON request bodies: every datastore, user and push body goes through JSONParser.
// Mirrored by JSONFuzzCorpusTests in Tests/StackMobCoreTests/JSON.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    _ = try? JSONParser.parse(UnsafeBufferPointer(start: data, count: size))
    return 0
}

exit(stackmob_fuzz_run(CommandLine.argc, CommandLine.unsafeArgv))
