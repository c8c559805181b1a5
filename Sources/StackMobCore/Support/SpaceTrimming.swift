extension StringProtocol {
    /// Without the spaces and tabs around it: the characters Foundation's
    /// `trimmingCharacters(in: .whitespaces)` removes (Unicode space separators and tab), compared
    /// a character at a time. Written here because Foundation's goes through NSString, and for
    /// the headers parsed on every request (`Range`, `Authorization`, `X-StackMob-OrderBy`…) that
    /// round trip cost more than the parsing.
    public func trimmingSpaces() -> String {
        func isSpace(_ character: Character) -> Bool {
            character.unicodeScalars.allSatisfy { $0 == "\t" || $0.properties.generalCategory == .spaceSeparator }
        }
        guard let first = firstIndex(where: { !isSpace($0) }), let last = lastIndex(where: { !isSpace($0) }) else { return "" }
        return String(self[first...last])
    }
}
