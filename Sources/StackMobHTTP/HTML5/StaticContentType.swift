/// The `Content-Type` of a deployed file, by its extension. Sent with `nosniff`, so a browser
/// trusts it: an unknown extension is `application/octet-stream` (a download), never a guess.
enum StaticContentType {
    static func of(fileName: String) -> String {
        guard let dot = fileName.lastIndex(of: ".") else { return fallback }
        return types[fileName[fileName.index(after: dot)...].lowercased()] ?? fallback
    }

    static let fallback = "application/octet-stream"

    private static let types: [String: String] = [
        "html": "text/html; charset=utf-8", "htm": "text/html; charset=utf-8",
        "css": "text/css; charset=utf-8",
        "js": "text/javascript; charset=utf-8", "mjs": "text/javascript; charset=utf-8",
        "json": "application/json; charset=utf-8", "map": "application/json; charset=utf-8",
        "webmanifest": "application/manifest+json; charset=utf-8",
        "txt": "text/plain; charset=utf-8", "md": "text/markdown; charset=utf-8", "csv": "text/csv; charset=utf-8",
        "xml": "application/xml; charset=utf-8", "svg": "image/svg+xml; charset=utf-8",
        "appcache": "text/cache-manifest; charset=utf-8", "manifest": "text/cache-manifest; charset=utf-8",
        "png": "image/png", "jpg": "image/jpeg", "jpeg": "image/jpeg", "gif": "image/gif", "webp": "image/webp",
        "avif": "image/avif", "ico": "image/x-icon", "bmp": "image/bmp",
        "woff": "font/woff", "woff2": "font/woff2", "ttf": "font/ttf", "otf": "font/otf", "eot": "application/vnd.ms-fontobject",
        "mp3": "audio/mpeg", "ogg": "audio/ogg", "wav": "audio/wav", "m4a": "audio/mp4",
        "mp4": "video/mp4", "webm": "video/webm", "mov": "video/quicktime",
        "pdf": "application/pdf", "zip": "application/zip", "wasm": "application/wasm",
    ]
}
