/// Indented JSON for files people read and commit (`schema export`): keys sorted, two spaces,
/// arrays of scalars kept on one line so a field list or an index reads as one line.
extension JSONWriter {
    public static func pretty(_ value: JSONValue) -> String {
        var output = ""
        write(value, indent: "", into: &output)
        return output + "\n"
    }

    private static func write(_ value: JSONValue, indent: String, into output: inout String) {
        switch value {
        case .object(let object) where !object.isEmpty:
            let inner = indent + "  "
            output += "{\n"
            for (position, key) in object.keys.sorted(by: { $0.utf8.lexicographicallyPrecedes($1.utf8) }).enumerated() {
                if position > 0 { output += ",\n" }
                output += inner + string(.string(key)) + ": "
                write(object[key]!, indent: inner, into: &output)
            }
            output += "\n" + indent + "}"
        case .array(let elements) where elements.contains(where: { $0.objectValue != nil }):
            let inner = indent + "  "
            output += "[\n"
            for (position, element) in elements.enumerated() {
                if position > 0 { output += ",\n" }
                output += inner
                write(element, indent: inner, into: &output)
            }
            output += "\n" + indent + "]"
        default:
            output += string(value, omittingNulls: false)
        }
    }
}
