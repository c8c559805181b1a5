import Foundation

/// A site uploaded to deploy over the admin API: a tar archive (POSIX ustar, with pax and GNU
/// long names), gzip-compressed or not. Everything is checked before a byte is written: only
/// regular files and directories, every path relative and inside the archive (no `/…`, no
/// `..`), no links of either kind, and bounded sizes, so an archive can neither write outside
/// the directory it is unpacked into nor make the deploy read a file of the server's.
public enum SiteArchive {
    /// Entries one archive may hold.
    static let maxEntries = 100_000

    /// A regular file to write: its path inside the site, and where its bytes lie in the tar.
    struct Entry: Equatable {
        let path: String
        let range: Range<Int>
    }

    /// Unpacks `bytes` into `directory` (which must exist and be empty).
    /// - Parameter maxUnpackedBytes: the most the tar stream (after gzip) may take.
    public static func unpack(_ bytes: [UInt8], into directory: String, maxUnpackedBytes: Int) throws(SiteArchiveError) {
        let tar: [UInt8]
        if bytes.starts(with: [0x1F, 0x8B]) {
            guard let inflated = Gzip.decompress(bytes, limit: maxUnpackedBytes) else { throw .tooLargeOrCorrupt }
            tar = inflated
        } else {
            guard bytes.count <= maxUnpackedBytes else { throw .tooLargeOrCorrupt }
            tar = bytes
        }
        let (files, directories) = try entries(of: tar)
        let root = URL(fileURLWithPath: directory, isDirectory: true)
        let manager = FileManager.default
        do {
            for path in directories {
                try manager.createDirectory(at: root.appendingPathComponent(path), withIntermediateDirectories: true)
            }
            for file in files {
                let destination = root.appendingPathComponent(file.path)
                try manager.createDirectory(at: destination.deletingLastPathComponent(), withIntermediateDirectories: true)
                try Data(tar[file.range]).write(to: destination, options: .withoutOverwriting)
            }
        } catch {
            // A path given twice, or as a file and a directory: not something to guess about.
            throw .conflictingEntries
        }
    }

    /// The archive's regular files and directories, checked.
    static func entries(of tar: [UInt8]) throws(SiteArchiveError) -> (files: [Entry], directories: [String]) {
        var files: [Entry] = []
        var directories: [String] = []
        var offset = 0
        var longName: String?
        while offset + 512 <= tar.count {
            let header = tar[offset..<offset + 512]
            // Two zero blocks end the archive; one is enough to stop reading.
            if header.allSatisfy({ $0 == 0 }) { return (files, directories) }
            guard checksumMatches(header) else { throw .notAnArchive }
            guard let size = octal(header, 124, 12), size >= 0, offset + 512 + size <= tar.count else { throw .notAnArchive }
            let body = offset + 512..<offset + 512 + size
            offset = body.upperBound + (512 - size % 512) % 512
            guard files.count + directories.count < maxEntries else { throw .tooManyEntries }
            let type = header[header.startIndex + 156]
            switch type {
            case UInt8(ascii: "x"):
                longName = paxPath(tar[body]) ?? longName
                continue
            case UInt8(ascii: "L"):
                longName = String(decoding: tar[body].prefix { $0 != 0 }, as: UTF8.self)
                continue
            case UInt8(ascii: "g"):
                continue
            default:
                break
            }
            let name = longName ?? headerName(header)
            longName = nil
            switch type {
            case UInt8(ascii: "0"), 0, UInt8(ascii: "7"):
                files.append(Entry(path: try safePath(name), range: body))
            case UInt8(ascii: "5"):
                let path = try safePath(name, allowingRoot: true)
                if !path.isEmpty { directories.append(path) }
            case UInt8(ascii: "1"), UInt8(ascii: "2"):
                throw .link(name: printable(name))
            default:
                throw .unsupportedEntry(name: printable(name))
            }
        }
        // Without its end blocks an archive may have been cut short.
        throw .notAnArchive
    }

    /// A path inside the archive, normalised (`./a//b/` → `a/b`); refused when absolute, when a
    /// segment is `..`, or when it holds a NUL or a backslash.
    static func safePath(_ name: String, allowingRoot: Bool = false) throws(SiteArchiveError) -> String {
        guard !name.hasPrefix("/"), !name.contains("\\"), !name.utf8.contains(0) else { throw .unsafePath(name: printable(name)) }
        let segments = name.split(separator: "/").filter { $0 != "." }
        guard !segments.contains("..") else { throw .unsafePath(name: printable(name)) }
        let path = segments.joined(separator: "/")
        guard allowingRoot || !path.isEmpty else { throw .unsafePath(name: printable(name)) }
        return path
    }

    /// `prefix/name` of a ustar header (the prefix only under the `ustar` magic).
    private static func headerName(_ header: ArraySlice<UInt8>) -> String {
        let start = header.startIndex
        let name = String(decoding: header[start..<start + 100].prefix { $0 != 0 }, as: UTF8.self)
        guard header[start + 257..<start + 262].elementsEqual("ustar".utf8) else { return name }
        let prefix = String(decoding: header[start + 345..<start + 500].prefix { $0 != 0 }, as: UTF8.self)
        return prefix.isEmpty ? name : prefix + "/" + name
    }

    /// The `path` record of a pax extended header (`<length> path=<value>\n` records).
    private static func paxPath(_ records: ArraySlice<UInt8>) -> String? {
        let text = String(decoding: records, as: UTF8.self)
        for record in text.split(separator: "\n") {
            guard let space = record.firstIndex(of: " ") else { continue }
            let pair = record[record.index(after: space)...]
            if pair.hasPrefix("path=") { return String(pair.dropFirst(5)) }
        }
        return nil
    }

    /// An octal field (NUL- or space-terminated), or GNU's base-256 form for large sizes.
    private static func octal(_ header: ArraySlice<UInt8>, _ at: Int, _ length: Int) -> Int? {
        let field = header[header.startIndex + at..<header.startIndex + at + length]
        if let first = field.first, first & 0x80 != 0 {
            var value = 0
            for byte in field.dropFirst() {
                guard value < Int.max >> 8 else { return nil }
                value = value << 8 | Int(byte)
            }
            return value
        }
        let digits = field.drop { $0 == UInt8(ascii: " ") }.prefix { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "7") }
        guard !digits.isEmpty, digits.count <= 11 else { return digits.isEmpty ? 0 : nil }
        return digits.reduce(0) { $0 * 8 + Int($1 - UInt8(ascii: "0")) }
    }

    /// The header's checksum: the sum of its bytes with the checksum field read as spaces.
    private static func checksumMatches(_ header: ArraySlice<UInt8>) -> Bool {
        guard let stored = octal(header, 148, 8) else { return false }
        var sum = 0
        for (index, byte) in header.enumerated() {
            sum += (148..<156).contains(index) ? Int(UInt8(ascii: " ")) : Int(byte)
        }
        return sum == stored
    }

    /// A name for an error message: the archive's own, without control characters, shortened.
    private static func printable(_ name: String) -> String {
        String(name.unicodeScalars.filter { $0.value >= 0x20 && $0.value != 0x7F }.prefix(200).map(Character.init))
    }
}

/// Why an uploaded site was refused; every message names only paths inside the archive.
public enum SiteArchiveError: Error, Sendable, Equatable {
    case notAnArchive
    case tooLargeOrCorrupt
    case tooManyEntries
    case unsafePath(name: String)
    case link(name: String)
    case unsupportedEntry(name: String)
    case conflictingEntries

    public var message: String {
        switch self {
        case .notAnArchive: "The body is not a tar archive (send a .tar or .tar.gz of the site)"
        case .tooLargeOrCorrupt: "The archive is corrupt, or unpacks to more than the deploy allows"
        case .tooManyEntries: "The archive holds more than \(SiteArchive.maxEntries) entries"
        case .unsafePath(let name): "The archive entry '\(name)' is not a relative path inside the site"
        case .link(let name): "The archive entry '\(name)' is a link; a site holds regular files and directories only"
        case .unsupportedEntry(let name): "The archive entry '\(name)' is not a regular file or directory"
        case .conflictingEntries: "The archive names a path twice, or as both a file and a directory"
        }
    }
}
