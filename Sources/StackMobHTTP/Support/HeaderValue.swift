import HTTPTypes

extension HTTPFields {
    /// What `self[name]` answers: the value of the field named `name`, or of every field of that
    /// name, combined as HTTP combines them (`; ` between cookies, `, ` otherwise); nil when the
    /// request has none.
    ///
    /// Written out because the subscript joins the values with a generic `joined(separator:)` even
    /// when there is only one, which the headers read on every request (`Accept` twice,
    /// `Authorization`, `Cookie`, …) made a measurable share of a trivial request's CPU
    /// (docs/benchmarks.md, "Figures behind design choices").
    func value(of name: HTTPField.Name) -> String? {
        var combined: String?
        for field in self where field.name == name {
            if let earlier = combined {
                combined = earlier + (name == .cookie ? "; " : ", ") + field.value
            } else {
                combined = field.value
            }
        }
        return combined
    }
}
