import Foundation
import FuzzDriver
import StackMobCore

// The query headers the server parses itself: X-StackMob-OrderBy, X-StackMob-Select,
// X-StackMob-Expand (and `_expand`), X-StackMob-Relations and X-StackMob-FieldTypes, each given
// the same value. Mirrored by QueryHeadersFuzzCorpusTests in Tests/StackMobCoreTests/Query.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let header = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    _ = try? QueryRequest.parseOrderBy(header)
    _ = try? QueryRequest.parseSelect(header)
    _ = try? QueryRequest.parseExpand(header)
    _ = try? RelationMap.parse(header)
    _ = FieldTypesHeader.parse(header)
    return 0
}

exit(stackmob_fuzz_run(CommandLine.argc, CommandLine.unsafeArgv))
