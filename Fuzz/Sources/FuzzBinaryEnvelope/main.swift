import Foundation
import FuzzDriver
import StackMobCore

// A binary field's envelope: `Content-Type: …\nContent-Disposition: attachment; filename=…\n
// Content-Transfer-Encoding: base64\n\n<data>`. Mirrored by BinaryEnvelopeFuzzCorpusTests in
// Tests/StackMobCoreTests/Files.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    _ = BinaryEnvelope.looksLikeEnvelope(text)
    _ = try? BinaryEnvelope.parse(text, field: "photo")
    return 0
}

exit(stackmob_fuzz_run(CommandLine.argc, CommandLine.unsafeArgv))
