import Testing
@testable import WOPIValidator

@Suite("UTF-7, URL and JSON helpers")
struct EncodingTests {
    @Test("UTF-7 as .NET writes it", arguments: [
        ("madeup_name.wopitestx", "madeup+AF8-name.wopitestx"),
        ("ValidatorTestFile.wopitest", "ValidatorTestFile.wopitest"),
        ("a+b", "a+-b"),
        ("é", "+AOk-"),
        ("~", "+AH4-"),
        ("a b", "a b"),
        ("日本", "+ZeVnLA-"),
        ("__", "+AF8AXw-"),
    ])
    func utf7(input: String, expected: String) {
        #expect(UTF7.encode(input) == expected)
    }

    @Test("target headers turn spaces into plus signs after the URL round trip")
    func targetHeaderForm() {
        #expect(UTF7.encodeForTargetHeader("my doc_1.wopitest") == "my+doc+AF8-1.wopitest")
    }

    @Test("access tokens are percent-encoded except letters and digits")
    func keyValueEncoding() {
        #expect(URLQuery.keyValueEncode("a.b-c_d~é") == "a%2Eb%2Dc%5Fd%7E%C3%A9")
    }

    @Test("query parameters are read, replaced and appended like the original")
    func queryParameters() {
        let url = "http://h/wopi/files/2?access_token=a%2Bb+c&access_token_ttl=5"
        #expect(URLQuery.parameter("access_token", in: url) == "a+b c")
        #expect(URLQuery.parameter("ACCESS_TOKEN_TTL", in: url) == "5")
        #expect(URLQuery.parameter("missing", in: url) == nil)
        #expect(URLQuery.settingParameter("access_token", to: "INVALID", in: url) == "http://h/wopi/files/2?access_token=INVALID&access_token_ttl=5")
        #expect(URLQuery.settingParameter("access_token", to: "x y", in: "http://h/f#frag") == "http://h/f?access_token=x+y#frag")
        #expect(URLQuery.appendingPath("/contents", to: "http://h/wopi/files/2?access_token=t") == "http://h/wopi/files/2/contents?access_token=t")
    }

    @Test("JSON numbers keep their form and relaxed syntax is opt-in")
    func jsonParsing() throws {
        let value = try JSONParser().parse(#"{"a":1,"b":1.0,"c":[true,null,"x\u00e9"]}"#)
        #expect(value["a"]?.typeName == "integer")
        #expect(value["b"]?.typeName == "number")
        #expect(value["c"] == .array([.bool(true), .null, .string("xé")]))
        #expect(throws: JSONParser.Failure.self) { try JSONParser().parse("{a:'b'}") }
        #expect(try JSONParser(allowsRelaxedSyntax: true).parse("{a:'b'}") == .object([(key: "a", value: .string("b"))]))
        #expect(throws: JSONParser.Failure.self) { try JSONParser().parse("[1,]") }
        #expect(try JSONParser(allowsComments: true).parse("[1, // one\n 2]") == .array([.number(JSONNumber(text: "1")!), .number(JSONNumber(text: "2")!)]))
    }

    @Test("JSON paths select members, indexes and negative slices")
    func jsonPaths() throws {
        let doc = try JSONParser().parse(#"{"A":[{"Url":"u0"},{"Url":"u1"}],"P":{"Url":"p"}}"#)
        #expect(JSONPath("A[-1:].Url")?.select(in: doc) == .string("u1"))
        #expect(JSONPath("A[0].Url")?.select(in: doc) == .string("u0"))
        #expect(JSONPath("P.Url")?.select(in: doc) == .string("p"))
        #expect(JSONPath("A[5].Url")?.select(in: doc) == nil)
        #expect(JSONPath("A[:].Url")?.select(in: doc) == nil)  // two matches: not a single token
    }
}
