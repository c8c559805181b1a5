import CZlib

/// gzip (RFC 1952) with zlib, for the compressed copies an HTML5 deploy writes (compressing once
/// at deploy time costs nothing per request), and for a `.tar.gz` site uploaded to deploy.
enum Gzip {
    /// The gzip member for `bytes`, or nil if zlib fails.
    static func compress(_ bytes: [UInt8]) -> [UInt8]? {
        var stream = z_stream()
        // 15 window bits + 16 = a gzip header and trailer instead of zlib's.
        guard deflateInit2_(&stream, Z_BEST_COMPRESSION, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY, zlibVersion(), Int32(MemoryLayout<z_stream>.size)) == Z_OK
        else { return nil }
        defer { deflateEnd(&stream) }
        var output = [UInt8](repeating: 0, count: Int(deflateBound(&stream, uLong(bytes.count))) + 32)
        var input = bytes
        let result = input.withUnsafeMutableBufferPointer { inputBuffer in
            output.withUnsafeMutableBufferPointer { outputBuffer in
                stream.next_in = inputBuffer.baseAddress
                stream.avail_in = uInt(inputBuffer.count)
                stream.next_out = outputBuffer.baseAddress
                stream.avail_out = uInt(outputBuffer.count)
                return deflate(&stream, Z_FINISH)
            }
        }
        guard result == Z_STREAM_END else { return nil }
        return Array(output.prefix(Int(stream.total_out)))
    }

    /// The bytes of the gzip member `bytes`; nil if it is not one, or would pass `limit` bytes
    /// unpacked (a small archive can unpack to gigabytes).
    static func decompress(_ bytes: [UInt8], limit: Int) -> [UInt8]? {
        var stream = z_stream()
        guard inflateInit2_(&stream, 15 + 16, zlibVersion(), Int32(MemoryLayout<z_stream>.size)) == Z_OK else { return nil }
        defer { inflateEnd(&stream) }
        var output: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        var input = bytes
        return input.withUnsafeMutableBufferPointer { inputBuffer -> [UInt8]? in
            stream.next_in = inputBuffer.baseAddress
            stream.avail_in = uInt(inputBuffer.count)
            while true {
                let (result, produced) = chunk.withUnsafeMutableBufferPointer { chunkBuffer -> (Int32, Int) in
                    stream.next_out = chunkBuffer.baseAddress
                    stream.avail_out = uInt(chunkBuffer.count)
                    let result = inflate(&stream, Z_NO_FLUSH)
                    return (result, chunkBuffer.count - Int(stream.avail_out))
                }
                guard result == Z_OK || result == Z_STREAM_END, output.count + produced <= limit else { return nil }
                output.append(contentsOf: chunk.prefix(produced))
                if result == Z_STREAM_END { return output }
                // No progress with input left means a truncated member.
                if produced == 0 && stream.avail_in == 0 { return nil }
            }
        }
    }
}
