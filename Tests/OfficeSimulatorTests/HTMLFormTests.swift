import Foundation
import OfficeSimulator
import Testing
import WOPIHTTPClient

/// The form filler reads a page the way a browser does (HTML Living Standard §4.10.21).
@Suite("HTML form filler")
struct HTMLFormTests {
    static let page = URL(string: "https://auth.example.com/oauth2/authorize?client_id=x&state=s")!

    static func fields(of request: SimulatorRequest) -> [String] {
        String(decoding: request.body ?? Data(), as: UTF8.self).split(separator: "&").map(String.init)
    }

    @Test("hidden inputs go back unchanged, typed fields carry what the person typed")
    func hiddenAndTyped() throws {
        let html = """
            <form method="post" action="/oauth2/signin">
              <input type="hidden" name="state" value="abc123">
              <input type="hidden" name="csrf" value="t0k3n">
              <input type="text" name="username">
              <input type="password" name="password">
              <input type="submit" value="Sign in">
            </form>
            """
        let form = try HTMLForm(html: html, pageURL: Self.page)
        #expect(form.method == "POST")
        #expect(form.action.absoluteString == "https://auth.example.com/oauth2/signin")
        #expect(form.usernameField?.name == "username" && form.passwordField?.name == "password")
        let request = try form.submission(filling: ["username": "alice@example.com", "password": "p&ss word=1"])
        #expect(request.method == "POST" && request.url == form.action)
        #expect(request.headers.contains(SimulatorHeader("Content-Type", "application/x-www-form-urlencoded")))
        // The unnamed submit button is not sent; spaces become '+', reserved characters %XX.
        #expect(Self.fields(of: request) == ["state=abc123", "csrf=t0k3n", "username=alice%40example.com", "password=p%26ss+word%3D1"])
    }

    @Test("escaped attribute values are unescaped before they are sent back")
    func escaping() throws {
        let html = """
            <form method=post action='signin?a=1&amp;b=2'>
              <input type=hidden name=note value="a&amp;b &quot;q&quot; &lt;t&gt; &#39;s&#39; &#x41;&#66; &unknown; caf&eacute">
              <input type='hidden' name='single' value='it&#39;s "fine"'>
              <input type="hidden" name="plain" value=unquoted&amp;more>
              <button type="submit">Go</button>
            </form>
            """
        let form = try HTMLForm(html: html, pageURL: Self.page)
        #expect(form.action.absoluteString == "https://auth.example.com/oauth2/signin?a=1&b=2")
        let values = Dictionary(uniqueKeysWithValues: form.controls.compactMap { control in control.name.map { ($0, control.value) } })
        #expect(values["note"] == "a&b \"q\" <t> 's' AB &unknown; caf&eacute")
        #expect(values["single"] == "it's \"fine\"")
        #expect(values["plain"] == "unquoted&more")
    }

    @Test("relative actions resolve against the page; an empty action posts back to the page")
    func relativeAction() throws {
        let cases: [(String, String)] = [
            ("signin", "https://auth.example.com/oauth2/signin"),
            ("../login", "https://auth.example.com/login"),
            ("//other.example.com/x", "https://other.example.com/x"),
            ("http://127.0.0.1:8080/y", "http://127.0.0.1:8080/y"),
            ("", Self.page.absoluteString),
        ]
        for (action, expected) in cases {
            let form = try HTMLForm(html: "<form method='post' action='\(action)'><button>Go</button></form>", pageURL: Self.page)
            #expect(form.action.absoluteString == expected, "action '\(action)'")
        }
        #expect(throws: HTMLFormError.invalidAction("javascript:alert(1)")) {
            try HTMLForm(html: "<form method='post' action='javascript:alert(1)'></form>", pageURL: Self.page)
        }
    }

    @Test("only the pressed button is sent, with its name and value")
    func consentButtons() throws {
        let html = """
            <form method="post" action="consent">
              <input type="hidden" name="ticket" value="T">
              <button type="submit" name="decision" value="deny">Deny</button>
              <button type="submit" name="decision" value="allow">Allow <b>Office</b></button>
              <button type="button" name="help" value="1">Help</button>
            </form>
            """
        let form = try HTMLForm(html: html, pageURL: Self.page)
        #expect(form.submitButtons.map(\.value) == ["deny", "allow"])
        let allow = try #require(form.button(named: "decision", value: "ALLOW"))
        #expect(Self.fields(of: try form.submission(filling: [:], pressing: allow)) == ["ticket=T", "decision=allow"])
        // Enter presses the first submit button.
        #expect(Self.fields(of: try form.submission(filling: [:])) == ["ticket=T", "decision=deny"])
    }

    @Test("checkboxes, disabled controls, textareas and selects follow the browser's rules")
    func otherControls() throws {
        let html = """
            <form method="post">
              <input type="checkbox" name="remember" value="yes">
              <input type="checkbox" name="terms" checked>
              <input type="text" name="locked" value="x" disabled>
              <textarea name="notes">line &amp; more</textarea>
              <select name="tenant"><option value="a">A</option><option value="b" selected>B</option></select>
              <input type="submit" name="go" value="Go">
            </form>
            """
        let form = try HTMLForm(html: html, pageURL: Self.page)
        #expect(Self.fields(of: try form.submission(filling: [:])) == ["terms=on", "notes=line+%26+more", "tenant=b", "go=Go"])
    }

    @Test("a GET form puts its fields in the query")
    func getForm() throws {
        let form = try HTMLForm(html: "<form action='/search?old=1'><input name='q' value='a b'></form>", pageURL: Self.page)
        let request = try form.submission(filling: ["q": "x&y"])
        #expect(request.method == "GET" && request.body == nil)
        #expect(request.url.absoluteString == "https://auth.example.com/search?q=x%26y")
    }

    @Test("comments and scripts hide nothing and add no forms")
    func commentsAndScripts() throws {
        let html = """
            <!-- <form action="/trap"></form> -->
            <script>var s = "<form action='/trap2'>"; if (a<b) {}</script>
            <form method="post" action="/real"><input type="hidden" name="k" value="v"></form>
            """
        let form = try HTMLForm(html: html, pageURL: Self.page)
        #expect(form.action.path == "/real" && form.controls.count == 1)
    }

    @Test("pages without exactly one form, or values for fields that do not exist, are errors naming the problem")
    func errors() throws {
        #expect(throws: HTMLFormError.noForm) { try HTMLForm(html: "<p>Signed out</p>", pageURL: Self.page) }
        #expect(throws: HTMLFormError.severalForms(2)) { try HTMLForm(html: "<form></form><form></form>", pageURL: Self.page) }
        #expect(throws: HTMLFormError.unsupportedMethod("PUT")) { try HTMLForm(html: "<form method='put'></form>", pageURL: Self.page) }
        let form = try HTMLForm(html: "<form method='post'><input type='hidden' name='h' value='1'></form>", pageURL: Self.page)
        #expect(throws: HTMLFormError.unknownField("h")) { try form.submission(filling: ["h": "changed"]) }
        #expect(HTMLFormError.severalForms(2).description == "the page has 2 forms, expected exactly one")
    }

    @Test("the error element's text explains a refused sign-in")
    func errorMessage() {
        let html = "<div class='form error'>Wrong <b>user name</b>\n or password.</div><p class='errors'>not this</p>"
        #expect(HTMLForm.errorMessage(in: html) == "Wrong user name or password.")
        #expect(HTMLForm.errorMessage(in: "<p class='errors'>plural is another class</p>") == nil)
    }
}
