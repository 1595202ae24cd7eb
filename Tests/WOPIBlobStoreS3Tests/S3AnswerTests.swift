import Foundation
import NIOCore
import Testing
@testable import WOPIBlobStoreS3

/// The S3 server's XML answers, read without a server. Inputs from the `s3-xml` fuzz target (Fuzz/).
@Suite("S3 answers")
struct S3AnswerTests {
    /// A ListMultipartUploads answer whose `Initiated` element the fuzzer broke with two 0xFF bytes (not
    /// UTF-8); Foundation's XMLParser under XMLCoder trapped on it, so one bad answer stopped the host.
    @Test("an answer whose element names are not UTF-8 is refused with an error, not a crash")
    func elementNamesThatAreNotUTF8AreRefused() {
        var body = ByteBuffer(string: #"<?xml version="1.0" encoding="UTF-8"?><ListMultipartUploadsResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/"><IsTruncated>false</IsTruncated><Upload><Key>blobs/a</Key><UploadId>u1</UploadId><"#)
        body.writeBytes([0xFF, 0xFF])
        body.writeString("itiated>2023-11-14T22:13:20.000Z</Initiated></Upload></ListMultipartUploadsResult>")
        #expect(throws: S3BlobStoreError.requestFailed("the S3 server's answer cannot be read: the document is not UTF-8")) {
            try S3Client.decode(ListMultipartUploadsResult.self, from: body)
        }
    }

    /// A processing instruction without data: Foundation's XMLParser read its data through a null pointer.
    @Test("an answer with a processing instruction is refused with an error, not a crash")
    func processingInstructionsAreRefused() {
        let body = ByteBuffer(string: #"<?xml version="1.0" encoding="UTF-8"?><?lxm?><ListBucketResult><Name>b</Name></ListBucketResult>"#)
        #expect(throws: S3BlobStoreError.requestFailed("the S3 server's answer cannot be read: the document has a processing instruction")) {
            try S3Client.decode(ListBucketResult.self, from: body)
        }
    }

    @Test("a listing as S3 sends it still decodes")
    func listingDecodes() throws {
        let body = ByteBuffer(string: #"<?xml version="1.0" encoding="UTF-8"?><ListBucketResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/"><Name>b</Name><IsTruncated>true</IsTruncated><NextContinuationToken>t1</NextContinuationToken><Contents><Key>blobs/ä</Key><LastModified>2023-11-14T22:13:20.000Z</LastModified></Contents></ListBucketResult>"#)
        let list = try S3Client.decode(ListBucketResult.self, from: body)
        #expect(list.contents.map(\.key) == ["blobs/ä"])
        #expect(list.isTruncated && list.nextContinuationToken == "t1")
    }
}
