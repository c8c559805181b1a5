import Foundation
import FuzzDriver
@testable import StackMobCore

// Configuration files: JSON with comment lines, then the decoder that checks every key and value.
// Mirrored by ConfigurationFuzzCorpusTests in Tests/StackMobCoreTests/Configuration.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = UnsafeBufferPointer(start: data, count: size)
    // The decoder reads the files a configuration names (schema files, CA files): a device such
    // as /dev/zero would never end, and is not the parser's concern.
    let text = String(decoding: bytes, as: UTF8.self)
    guard !["dev/", "proc/", "sys/"].contains(where: { text.contains($0) }) else { return 0 }
    guard let tree = (try? JSONParser.parse(bytes, options: .init(allowsComments: true)))?.objectValue else { return 0 }
    _ = try? ConfigurationDecoder.decode(tree)
    return 0
}

exit(stackmob_fuzz_run(CommandLine.argc, CommandLine.unsafeArgv))
