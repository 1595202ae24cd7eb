/// The words of the sign-in, consent and error pages, one table per ``PageLanguage``.
///
/// `%@` placeholders are filled by `PageText.fill(_:_:)`; the page templates escape the result.
struct SignInStrings: Sendable {
    var signInTitle: String
    /// "Sign in to %@" (the brand).
    var signInHeading: String
    var username: String
    var password: String
    var signInButton: String
    var wrongCredentials: String
    /// "Too many attempts…", with the minutes to wait.
    var tooManyAttempts: String
    var consentTitle: String
    /// "%@ (the client) wants to…".
    var consentQuestion: String
    /// "Signed in as %@".
    var signedInAs: String
    var allow: String
    var deny: String
    var errorTitle: String
    var unknownClient: String
    var redirectMismatch: String
    var formExpired: String
    var badRequest: String
    /// "Sign in with %@" (the identity provider's name).
    var signInWithProvider: String
    /// Between the provider's button and the password form.
    var orPassword: String
    /// "%@ (the provider) is not answering…".
    var providerUnavailable: String
    /// "Signing in with %@ (the provider) did not succeed…".
    var providerRefused: String
    /// The password form was posted to a host that signs in only through its provider.
    var passwordsOff: String

    /// The messages of the error page.
    enum Message: Sendable {
        case badRequest, unknownClient, redirectMismatch, formExpired
    }

    /// The text of an error-page message.
    func text(_ message: Message) -> String {
        switch message {
        case .badRequest: badRequest
        case .unknownClient: unknownClient
        case .redirectMismatch: redirectMismatch
        case .formExpired: formExpired
        }
    }

    static let english = SignInStrings(
        signInTitle: "Sign in",
        signInHeading: "Sign in to %@",
        username: "User name",
        password: "Password",
        signInButton: "Sign in",
        wrongCredentials: "The user name or password is wrong.",
        tooManyAttempts: "Too many attempts. Try again in %@ minutes.",
        consentTitle: "Allow access",
        consentQuestion: "%@ wants to open and edit the documents in your account.",
        signedInAs: "Signed in as %@",
        allow: "Allow",
        deny: "Deny",
        errorTitle: "Sign-in cannot continue",
        unknownClient: "The app that sent you here is not registered with this service.",
        redirectMismatch: "The app that sent you here asked to return to an address it is not registered for.",
        formExpired: "This page has expired. Go back to the app and start signing in again.",
        badRequest: "The sign-in request is not valid:",
        signInWithProvider: "Sign in with %@",
        orPassword: "or with a user name and password",
        providerUnavailable: "%@ is not answering. Try again in a few minutes.",
        providerRefused: "Signing in with %@ did not succeed. Go back and start signing in again.",
        passwordsOff: "This service signs in only through its identity provider.")

    static let german = SignInStrings(
        signInTitle: "Anmelden",
        signInHeading: "Bei %@ anmelden",
        username: "Benutzername",
        password: "Kennwort",
        signInButton: "Anmelden",
        wrongCredentials: "Benutzername oder Kennwort ist falsch.",
        tooManyAttempts: "Zu viele Versuche. Bitte in %@ Minuten erneut versuchen.",
        consentTitle: "Zugriff erlauben",
        consentQuestion: "%@ möchte die Dokumente in Ihrem Konto öffnen und bearbeiten.",
        signedInAs: "Angemeldet als %@",
        allow: "Erlauben",
        deny: "Ablehnen",
        errorTitle: "Anmeldung nicht möglich",
        unknownClient: "Die App, die Sie hierher geschickt hat, ist bei diesem Dienst nicht registriert.",
        redirectMismatch: "Die App, die Sie hierher geschickt hat, möchte zu einer Adresse zurück, für die sie nicht registriert ist.",
        formExpired: "Diese Seite ist abgelaufen. Kehren Sie zur App zurück und melden Sie sich erneut an.",
        badRequest: "Die Anmeldeanfrage ist ungültig:",
        signInWithProvider: "Mit %@ anmelden",
        orPassword: "oder mit Benutzername und Kennwort",
        providerUnavailable: "%@ antwortet nicht. Bitte in einigen Minuten erneut versuchen.",
        providerRefused: "Die Anmeldung mit %@ ist nicht gelungen. Gehen Sie zurück und melden Sie sich erneut an.",
        passwordsOff: "Dieser Dienst meldet nur über seinen Identitätsanbieter an.")

    static let simplifiedChinese = SignInStrings(
        signInTitle: "登录",
        signInHeading: "登录到 %@",
        username: "用户名",
        password: "密码",
        signInButton: "登录",
        wrongCredentials: "用户名或密码错误。",
        tooManyAttempts: "尝试次数过多。请在 %@ 分钟后重试。",
        consentTitle: "允许访问",
        consentQuestion: "%@ 请求打开和编辑你帐户中的文档。",
        signedInAs: "已登录为 %@",
        allow: "允许",
        deny: "拒绝",
        errorTitle: "无法继续登录",
        unknownClient: "将你转到此处的应用未在此服务中注册。",
        redirectMismatch: "将你转到此处的应用请求返回到一个未注册的地址。",
        formExpired: "此页面已过期。请返回应用并重新登录。",
        badRequest: "登录请求无效：",
        signInWithProvider: "使用 %@ 登录",
        orPassword: "或使用用户名和密码",
        providerUnavailable: "%@ 没有响应。请几分钟后重试。",
        providerRefused: "使用 %@ 登录未成功。请返回并重新登录。",
        passwordsOff: "此服务仅通过其身份提供商登录。")
}
