import Foundation
import FuzzDriver
import StackMobCore

// The Range header: `objects=a-b` for datastore pages, `bytes=a-b` for stored files of a few
// sizes (empty, one byte, ordinary, the largest). Mirrored by RangeFuzzCorpusTests in
// Tests/StackMobCoreTests/Query.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let header = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    if let range = try? ObjectRange.parse(header) { _ = range.limit }
    for fileSize in [0, 1, 1000, Int.max] {
        _ = ByteRange.parse(header, size: fileSize)
    }
    return 0
}

exit(stackmob_fuzz_run(CommandLine.argc, CommandLine.unsafeArgv))
