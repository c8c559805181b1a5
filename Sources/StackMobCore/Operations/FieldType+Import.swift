extension FieldType {
    /// Whether `value`, read from an export, is what a stored field of this type holds.
    func holds(_ value: JSONValue) -> Bool {
        switch (self, value) {
        case (.string, .string), (.password, .string), (.binary, .string), (.relation(_, toMany: false), .string): true
        case (.integer, .integer), (.float, .float), (.float, .integer), (.boolean, .bool), (.geopoint, .object): true
        case (.relation(_, toMany: true), .array(let items)): items.allSatisfy { $0.stringValue != nil }
        case (.array(let element), .array(let items)): items.allSatisfy { element.holds($0) }
        default: false
        }
    }
}

extension FieldType.ArrayElementType {
    func holds(_ value: JSONValue) -> Bool {
        switch (self, value) {
        case (.string, .string), (.integer, .integer), (.float, .float), (.float, .integer), (.boolean, .bool): true
        default: false
        }
    }
}
