import HTTPTypes
import NIOHTTP1

extension HTTPFields {
    /// The fields swift-nio-extras' `HTTPFields(_:splitCookie: false)` makes of NIO's headers,
    /// and the value of their first `Host`, which those fields leave out (it is the request's
    /// authority): the same names, raw and canonical, the same values, in the same order, and a
    /// name that is not a token dropped.
    ///
    /// A name a client sends on most requests, spelt as `KnownFieldNames` has it, is not validated
    /// and lowercased again: that conversion lowercased every name twice, a large part of its cost,
    /// and a lowercased copy compares with the server's own names byte by byte where the same
    /// string compares at once (docs/benchmarks.md, "Figures behind design choices").
    static func converting(_ headers: HTTPHeaders) -> (fields: HTTPFields, host: String?) {
        var fields = HTTPFields()
        fields.reserveCapacity(headers.count)
        var host: String?
        for (rawName, value) in headers {
            guard let name = KnownFieldNames.name(spelt: rawName) ?? HTTPField.Name(rawName) else { continue }
            if host == nil && name == KnownFieldNames.host {
                host = value
                continue
            }
            // A name met for the first time goes in through the name's subscript, which the
            // compiler specialises here; `append` is the collection protocols' generic `insert`.
            // That subscript replaces a name's fields, and splits a cookie: neither may happen.
            if name != .cookie && !fields.contains(name) {
                fields[name] = value
            } else {
                fields.append(HTTPField(name: name, value: value))
            }
        }
        return (fields, host)
    }
}

/// The header names clients send on most requests, as StackMob's SDKs and browsers spell them.
/// The SDKs' own names are spelt here again (StackMobHTTP declares them for its handlers): a
/// name's value is its text, so the two compare equal.
enum KnownFieldNames {
    /// swift-http-types has no `.host`: a request's `Host` is its authority.
    static let host = HTTPField.Name("Host")!
    private static let stackMobAPIKey = HTTPField.Name("X-StackMob-API-Key")!
    private static let stackMobRelations = HTTPField.Name("X-StackMob-Relations")!
    private static let httpMethodOverride = HTTPField.Name("X-HTTP-Method-Override")!
    private static let stackMobOrderBy = HTTPField.Name("X-StackMob-OrderBy")!
    private static let stackMobSelect = HTTPField.Name("X-StackMob-Select")!
    private static let stackMobExpand = HTTPField.Name("X-StackMob-Expand")!
    private static let stackMobFieldTypes = HTTPField.Name("X-StackMob-FieldTypes")!
    private static let stackMobUserAgent = HTTPField.Name("X-StackMob-User-Agent")!

    /// The known name whose raw name is `rawName`, byte for byte; nil for any other spelling.
    /// A switch on the length, then string comparisons: a name of up to 15 bytes is a small
    /// string, compared as two words.
    static func name(spelt rawName: String) -> HTTPField.Name? {
        switch rawName.utf8.count {
        case 4: rawName == "Host" ? host : nil
        case 5: rawName == "Range" ? .range : nil
        case 6: rawName == "Accept" ? .accept : rawName == "Cookie" ? .cookie : rawName == "Origin" ? .origin : nil
        case 7: rawName == "Referer" ? .referer : nil
        case 10: rawName == "User-Agent" ? .userAgent : rawName == "Connection" ? .connection : nil
        case 12: rawName == "Content-Type" ? .contentType : nil
        case 13: rawName == "Authorization" ? .authorization : rawName == "If-None-Match" ? .ifNoneMatch : nil
        case 14: rawName == "Content-Length" ? .contentLength : nil
        case 15: rawName == "Accept-Encoding" ? .acceptEncoding : rawName == "Accept-Language" ? .acceptLanguage : nil
        case 17: rawName == "X-StackMob-Expand" ? stackMobExpand : rawName == "X-StackMob-Select" ? stackMobSelect : nil
        case 18: rawName == "X-StackMob-API-Key" ? stackMobAPIKey : rawName == "X-StackMob-OrderBy" ? stackMobOrderBy : nil
        case 20: rawName == "X-StackMob-Relations" ? stackMobRelations : nil
        case 21: rawName == "X-StackMob-FieldTypes" ? stackMobFieldTypes : rawName == "X-StackMob-User-Agent" ? stackMobUserAgent : nil
        case 22: rawName == "X-HTTP-Method-Override" ? httpMethodOverride : nil
        case 29: rawName == "Access-Control-Request-Method" ? .accessControlRequestMethod : nil
        case 30: rawName == "Access-Control-Request-Headers" ? .accessControlRequestHeaders : nil
        default: nil
        }
    }
}
