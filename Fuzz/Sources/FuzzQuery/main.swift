import Foundation
import FuzzDriver
import StackMobCore
@testable import StackMobHTTP

// A query string as the datastore reads it: split and percent-decoded, parsed into conditions
// (`age[lt]=25`, `[near]`, `[within]`, `[orN].[andM].` groups), then typed against a schema with
// a field of every kind. Mirrored by QueryFuzzCorpusTests in Tests/StackMobHTTPTests/Fuzz.
let schema = SchemaDefinition(name: "thing", fields: [
    "name": .string, "age": .integer, "score": .float, "done": .boolean, "location": .geopoint,
    "tags": .array(.string), "counts": .array(.integer), "secret": .password, "photo": .binary,
    "author": .relation(target: "user", toMany: false), "friends": .relation(target: "user", toMany: true),
])

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let query = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    guard let parameters = try? QueryString.parameters(query), let filter = try? QueryParser.parse(parameters) else { return 0 }
    _ = try? QueryBinder.bind(filter, to: schema)
    return 0
}

exit(stackmob_fuzz_run(CommandLine.argc, CommandLine.unsafeArgv))
