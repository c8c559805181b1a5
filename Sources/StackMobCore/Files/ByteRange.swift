/// A `Range: bytes=…` request header for a file of a known size (RFC 9110 §14.1.2).
public enum ByteRange: Equatable, Sendable {
    /// No usable single range: serve the whole file (a multi-range or another unit is ignored, as
    /// RFC 9110 allows).
    case whole
    /// The inclusive byte range to serve with 206.
    case partial(ClosedRange<Int>)
    /// No byte of the file is in the range: 416.
    case unsatisfiable

    public static func parse(_ header: String?, size: Int) -> ByteRange {
        guard let header else { return .whole }
        let trimmed = header.trimmingSpaces()
        guard trimmed.lowercased().hasPrefix("bytes=") else { return .whole }
        let spec = trimmed.dropFirst(6).trimmingSpaces()
        guard !spec.contains(",") else { return .whole }
        let parts = spec.split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false).map { $0.trimmingSpaces() }
        guard parts.count == 2 else { return .unsatisfiable }
        switch (Int(parts[0]), Int(parts[1])) {
        case (let start?, let end?) where parts[0].allSatisfy(\.isNumber) && parts[1].allSatisfy(\.isNumber):
            guard start <= end, start < size else { return .unsatisfiable }
            return .partial(start...min(end, size - 1))
        case (let start?, nil) where parts[1].isEmpty && parts[0].allSatisfy(\.isNumber):
            guard start < size else { return .unsatisfiable }
            return .partial(start...(size - 1))
        case (nil, let suffix?) where parts[0].isEmpty && parts[1].allSatisfy(\.isNumber):
            guard suffix > 0, size > 0 else { return .unsatisfiable }
            return .partial(max(0, size - suffix)...(size - 1))
        default:
            return .unsatisfiable
        }
    }
}
