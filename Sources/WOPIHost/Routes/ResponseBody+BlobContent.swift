import Hummingbird
import NIOCore

extension ResponseBody {
    /// A response body that streams a stored blob with its size as `Content-Length`, sending each chunk
    /// as the store produces it.
    init(blob: BlobContent) {
        self.init(contentLength: Int(blob.size)) { writer in
            for try await chunk in blob { try await writer.write(chunk) }
            try await writer.finish(nil)
        }
    }
}
