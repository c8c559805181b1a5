import Foundation

/// The directory an operator deploys: walked and checked completely before anything is copied,
/// so a bad file fails the deploy with a clear error and the served version never changes.
enum HTML5Source {
    /// A file to deploy: its path relative to the source, and where its bytes are read from (a
    /// symbolic link inside the source is followed).
    struct Entry {
        let relativePath: String
        let readPath: String
    }

    /// Files larger than this are not gzipped (they are usually media, already compressed).
    static let gzipLimit = 16 * 1024 * 1024
    static let compressible: Set<String> = ["html", "htm", "css", "js", "mjs", "json", "map", "svg", "xml", "txt", "csv", "md", "webmanifest", "ico", "wasm"]

    static func files(in directory: String) throws -> [Entry] {
        let manager = FileManager.default
        var isDirectory: ObjCBool = false
        guard manager.fileExists(atPath: directory, isDirectory: &isDirectory) else { throw HTML5Error.sourceNotFound(directory) }
        guard isDirectory.boolValue else { throw HTML5Error.sourceNotADirectory(directory) }
        let root = URL(fileURLWithPath: directory).resolvingSymlinksInPath().standardizedFileURL.path
        var entries: [Entry] = []
        try walk(root: root, relative: "", into: &entries)
        return entries
    }

    private static func walk(root: String, relative: String, into entries: inout [Entry]) throws {
        let manager = FileManager.default
        let here = relative.isEmpty ? root : root + "/" + relative
        let names: [String]
        do {
            names = try manager.contentsOfDirectory(atPath: here)
        } catch {
            throw HTML5Error.unreadableFile(relative.isEmpty ? "." : relative)
        }
        // Hidden files (`.git`, `.env`, `.DS_Store`) are not published; the site never serves them.
        for name in names.sorted() where !name.hasPrefix(".") || name == ".well-known" {
            let path = relative.isEmpty ? name : relative + "/" + name
            let full = root + "/" + path
            let type = (try? manager.attributesOfItem(atPath: full))?[.type] as? FileAttributeType
            switch type {
            case .typeDirectory?:
                try walk(root: root, relative: path, into: &entries)
            case .typeRegular?:
                guard manager.isReadableFile(atPath: full) else { throw HTML5Error.unreadableFile(path) }
                entries.append(Entry(relativePath: path, readPath: full))
            case .typeSymbolicLink?:
                let target = URL(fileURLWithPath: full).resolvingSymlinksInPath().standardizedFileURL.path
                guard target.hasPrefix(root + "/") else { throw HTML5Error.pathOutsideSource(path) }
                // A dangling link fails here: there is nothing to read.
                var targetIsDirectory: ObjCBool = false
                guard manager.fileExists(atPath: target, isDirectory: &targetIsDirectory) else { throw HTML5Error.unreadableFile(path) }
                guard !targetIsDirectory.boolValue else { throw HTML5Error.unsupportedFile(path) }
                guard manager.isReadableFile(atPath: target) else { throw HTML5Error.unreadableFile(path) }
                entries.append(Entry(relativePath: path, readPath: target))
            default:
                throw HTML5Error.unsupportedFile(path)
            }
        }
    }

    /// Copies the checked files into `staging/site`, and a gzip copy of each compressible one that
    /// shrinks into `staging/gzip`.
    static func copy(_ entries: [Entry], from directory: String, into staging: URL) throws {
        let manager = FileManager.default
        let site = staging.appendingPathComponent("site", isDirectory: true)
        let gzip = staging.appendingPathComponent("gzip", isDirectory: true)
        try manager.createDirectory(at: site, withIntermediateDirectories: true)
        for entry in entries {
            let destination = site.appendingPathComponent(entry.relativePath)
            try manager.createDirectory(at: destination.deletingLastPathComponent(), withIntermediateDirectories: true)
            do {
                try manager.copyItem(atPath: entry.readPath, toPath: destination.path)
            } catch {
                throw HTML5Error.unreadableFile(entry.relativePath)
            }
            let suffix = URL(fileURLWithPath: entry.relativePath).pathExtension.lowercased()
            let size = (try? manager.attributesOfItem(atPath: destination.path))?[.size] as? Int ?? 0
            guard compressible.contains(suffix), size <= gzipLimit, let data = manager.contents(atPath: destination.path),
                let compressed = Gzip.compress(Array(data)), compressed.count < data.count * 9 / 10
            else { continue }
            let copy = gzip.appendingPathComponent(entry.relativePath)
            try manager.createDirectory(at: copy.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(compressed).write(to: copy)
        }
    }
}
