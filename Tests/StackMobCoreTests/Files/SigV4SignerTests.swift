import Foundation
import StackMobCore
import Testing

@Suite("SigV4 signing")
struct SigV4SignerTests {
    /// AWS's published example "GET Object" (S3 API reference, "Signature Calculations for the
    /// Authorization Header", example 1).
    @Test("reproduces AWS's published GET Object example exactly")
    func awsExample() {
        let signer = SigV4Signer(
            accessKeyID: "AKIAIOSFODNN7EXAMPLE", secretAccessKey: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", region: "us-east-1")
        let emptyHash = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
        #expect(SigV4Signer.hexSHA256([UInt8]()) == emptyHash)
        let authorization = signer.authorization(
            method: "GET", path: "/test.txt",
            headers: ["Host": "examplebucket.s3.amazonaws.com", "Range": "bytes=0-9", "x-amz-content-sha256": emptyHash, "x-amz-date": "20130524T000000Z"],
            payloadHash: emptyHash, amzDate: "20130524T000000Z")
        #expect(
            authorization
                == "AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request, SignedHeaders=host;range;x-amz-content-sha256;x-amz-date, Signature=f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41"
        )
    }

    @Test("the x-amz-date form is UTC")
    func amzDate() {
        #expect(SigV4Signer.amzDate(Date(timeIntervalSince1970: 1_369_353_600)) == "20130524T000000Z")
    }
}
