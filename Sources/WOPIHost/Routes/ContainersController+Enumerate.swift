import Foundation
import Hummingbird
import NIOCore
import WOPICore

// EnumerateChildren streamed a page at a time.
extension ContainersController {
    /// How many children one store read returns; the answer is written to the network page by page,
    /// so memory depends on this, not on the size of the folder.
    static var childrenPageSize: Int { 1000 }

    /// The extensions `X-WOPI-FileExtensionFilterList` lets through (lower case, with their dot), `nil` without the header.
    static func extensionFilter(_ request: Request) throws -> Set<String>? {
        try request.headers.single(.wopiFileExtensionFilterList).map { filter in
            Set(filter.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces).lowercased() })
        }
    }

    /// EnumerateChildren's answer (docs/rest/src/containers/EnumerateChildren.rst), streamed.
    ///
    /// The bytes are those ``WOPIJSON`` would produce for a ``ChildrenResponse`` (keys sorted,
    /// slashes unescaped), written without building the whole list: child containers and files are
    /// read from the store a page at a time (``WOPIStore/childFiles(of:after:limit:)``) and each page
    /// goes out as soon as it is encoded. The container was checked before the first byte; a store
    /// failure after it ends the connection without completing the body, which a client sees as an
    /// error rather than as a short list.
    ///
    /// `leading` entries go first among the child containers: the user's "Shared with me" in their root.
    func enumeratedChildren(of container: ContainerRecord, claims: AccessTokenClaims, request: Request, leading: [NamedURL] = []) throws -> Response {
        let extensions = try Self.extensionFilter(request)
        let backend = backend
        let pageSize = Self.childrenPageSize
        var headers = HTTPFields()
        headers[.contentType] = "application/json; charset=utf-8"
        let body = ResponseBody { writer in
            var buffer = ByteBuffer()
            buffer.writeStaticString(#"{"ChildContainers":["#)
            var first = true
            func writeContainer(name: String, url: String) {
                if !first { buffer.writeStaticString(",") }
                first = false
                buffer.writeStaticString(#"{"Name":"#)
                JSONText.writeString(name, to: &buffer)
                buffer.writeStaticString(#","Url":"#)
                JSONText.writeString(url, to: &buffer)
                buffer.writeStaticString("}")
            }
            for entry in leading { writeContainer(name: entry.name, url: entry.url) }
            var cursor: String?
            repeat {
                let page = try await backend.store.childContainers(of: container.id, after: cursor, limit: pageSize)
                for child in page { writeContainer(name: child.name, url: backend.url(.container(child.id), for: claims)) }
                cursor = page.count == pageSize ? page.last?.name : nil
                try await writer.write(buffer)
                buffer.clear()
            } while cursor != nil
            buffer.writeStaticString(#"],"ChildFiles":["#)
            first = true
            repeat {
                let page = try await backend.store.childFiles(of: container.id, after: cursor, limit: pageSize)
                for file in page where extensions.map({ $0.contains(file.fileExtension) }) ?? true {
                    if !first { buffer.writeStaticString(",") }
                    first = false
                    buffer.writeStaticString(#"{"LastModifiedTime":"#)
                    JSONText.writeString(file.modifiedAt.wopiTimestamp, to: &buffer)
                    buffer.writeStaticString(#","Name":"#)
                    JSONText.writeString(file.name, to: &buffer)
                    buffer.writeStaticString(#","Size":"#)
                    buffer.writeString(String(file.size))
                    buffer.writeStaticString(#","Url":"#)
                    JSONText.writeString(backend.url(.file(file.id), for: claims), to: &buffer)
                    buffer.writeStaticString(#","Version":"#)
                    JSONText.writeString(file.versionString, to: &buffer)
                    buffer.writeStaticString("}")
                }
                cursor = page.count == pageSize ? page.last?.name : nil
                if cursor != nil {
                    try await writer.write(buffer)
                    buffer.clear()
                }
            } while cursor != nil
            buffer.writeStaticString("]}")
            try await writer.write(buffer)
            try await writer.finish(nil)
        }
        return Response(status: .ok, headers: headers, body: body)
    }
}

/// JSON string literals written straight into a buffer, escaped as Foundation's `JSONEncoder` does
/// with `.withoutEscapingSlashes`, so a streamed answer has the same bytes as an encoded one.
enum JSONText {
    static func writeString(_ text: String, to buffer: inout ByteBuffer) {
        buffer.writeStaticString("\"")
        var text = text
        text.withUTF8 { bytes in
            var start = 0
            for index in bytes.indices {
                let byte = bytes[index]
                guard byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") else { continue }
                buffer.writeBytes(UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(bytes)[start..<index]))
                start = index + 1
                switch byte {
                case UInt8(ascii: "\""): buffer.writeStaticString("\\\"")
                case UInt8(ascii: "\\"): buffer.writeStaticString("\\\\")
                case 0x08: buffer.writeStaticString("\\b")
                case 0x0C: buffer.writeStaticString("\\f")
                case 0x0A: buffer.writeStaticString("\\n")
                case 0x0D: buffer.writeStaticString("\\r")
                case 0x09: buffer.writeStaticString("\\t")
                default:
                    let hex = Array("0123456789abcdef".utf8)
                    buffer.writeStaticString("\\u00")
                    buffer.writeInteger(hex[Int(byte >> 4)])
                    buffer.writeInteger(hex[Int(byte & 0x0F)])
                }
            }
            buffer.writeBytes(UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(bytes)[start...]))
        }
        buffer.writeStaticString("\"")
    }
}
