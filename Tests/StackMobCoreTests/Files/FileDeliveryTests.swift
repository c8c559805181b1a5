import Testing

import StackMobCore

/// What a browser is handed for a stored file: inert media inline, everything else an opaque
/// attachment.
@Suite("Stored files: delivered inert")
struct FileDeliveryTests {
    @Test("types outside the inline list are attachments of application/octet-stream", arguments: [
        "text/html", "image/svg+xml", "application/xhtml+xml", "text/xml", "application/xml", "text/javascript", "application/pdf",
        "application/octet-stream", "text/plain", "", "image/png\u{0}text/html", "video/mp4 text/html", "audio/", "multipart/x-mixed-replace",
    ])
    func attachments(type: String) {
        let delivery = FileDelivery(storedType: type, filename: "f.bin")
        #expect(delivery.contentType == "application/octet-stream")
        #expect(delivery.disposition == "attachment; filename=\"f.bin\"")
    }

    @Test("raster images, audio and video are inline, their type normalised", arguments: [
        ("image/png", "image/png"), ("IMAGE/JPEG; q=1", "image/jpeg"), (" image/gif ", "image/gif"), ("image/webp", "image/webp"),
        ("audio/mpeg", "audio/mpeg"), ("video/mp4", "video/mp4"), ("video/x-matroska", "video/x-matroska"),
    ])
    func inline(type: String, served: String) {
        let delivery = FileDelivery(storedType: type, filename: "f.png")
        #expect(delivery.contentType == served && delivery.disposition == "inline")
    }
}
