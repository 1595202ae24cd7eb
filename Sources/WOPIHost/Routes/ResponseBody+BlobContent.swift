import Hummingbird
import NIOCore

extension ResponseBody {
    /// A response body that streams a stored blob with its size as `Content-Length`, sending each chunk
    /// as the store produces it.
    ///
    /// The status has gone out before the body, so a body the store cuts off cannot change the answer: the
    /// connection closes short of `Content-Length`, which every client reads as a failed download, and
    /// `cutOff` hears how many bytes went out and why, to log and count it.
    init(blob: BlobContent, cutOff: @escaping @Sendable (_ sent: Int64, _ error: any Error) -> Void) {
        self.init(contentLength: Int(blob.size)) { writer in
            var sent: Int64 = 0
            var chunks = blob.makeAsyncIterator()
            while true {
                let next: ByteBuffer?
                do { next = try await chunks.next() } catch {
                    cutOff(sent, error)
                    throw error
                }
                guard let chunk = next else { break }
                try await writer.write(chunk)
                sent += Int64(chunk.readableBytes)
            }
            try await writer.finish(nil)
        }
    }
}
