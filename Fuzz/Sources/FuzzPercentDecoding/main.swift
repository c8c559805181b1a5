import Foundation
import FuzzDriver
@testable import StackMobCore
@testable import StackMobHTTP

// Every percent-decoder: path segments (with and without `+` as a space), OAuth 1.0 values, the
// MAC candidates' query forms and HTML5 site paths. Mirrored by PercentDecodingFuzzCorpusTests in
// Tests/StackMobHTTPTests/Fuzz.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    _ = try? PathSegment.decode(text)
    _ = try? PathSegment.decode(text, plusAsSpace: true)
    _ = OAuth1Encoding.decode(text)
    _ = OAuth1Encoding.decode(text, plusIsSpace: true)
    _ = MACCandidates.percentDecode(text[...], keeping: [])
    _ = MACCandidates.percentDecode(text[...], keeping: MACCandidates.iOSKeptEscapes)
    _ = try? SitePath("/" + text)
    return 0
}

exit(stackmob_fuzz_run(CommandLine.argc, CommandLine.unsafeArgv))
