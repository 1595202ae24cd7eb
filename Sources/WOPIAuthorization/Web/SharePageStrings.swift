import Foundation

/// The words of the share-link pages (`/share/<token>`), one table per ``PageLanguage``; what the
/// web front already says (Download, Folder, This folder is empty) comes from ``WebFrontStrings``.
///
/// `%@` placeholders are filled by ``PageText/fill(_:_:)``; the page templates escape the result.
struct SharePageStrings: Sendable {
    /// The title's second part for a shared file and for a shared folder.
    var sharedFile: String
    var sharedFolder: String
    /// "Shared by %@ · %@": who made the link and what it allows.
    var sharedBy: String
    var readOnly: String
    var editable: String
    /// Before a shared file's time: "Changed".
    var changed: String
    /// A ReadWrite link opened signed out: the sentence and the link to the sign-in page.
    var signInToEdit: String
    var signIn: String
    /// "You can edit this: it is in your files or in “%@”."
    var canEdit: String
    /// "Add to “%@” and edit".
    var accept: String
    /// The page of a link that is not valid, has expired, or whose item is gone (404).
    var invalidTitle: String
    var invalidMessage: String

    static let english = SharePageStrings(
        sharedFile: "Shared file", sharedFolder: "Shared folder", sharedBy: "Shared by %@ · %@", readOnly: "read-only",
        editable: "anyone signed in who adds it can edit it", changed: "Changed",
        signInToEdit: "To edit it, sign in, then open this link again.", signIn: "Sign in",
        canEdit: "You can edit this: it is in your files or in “%@”.", accept: "Add to “%@” and edit",
        invalidTitle: "Link not valid",
        invalidMessage: "This link is not valid or has expired. Ask the person who shared it for a new one.")

    static let german = SharePageStrings(
        sharedFile: "Geteilte Datei", sharedFolder: "Geteilter Ordner", sharedBy: "Geteilt von %@ · %@", readOnly: "nur lesen",
        editable: "alle Angemeldeten, die es hinzufügen, können es bearbeiten", changed: "Geändert",
        signInToEdit: "Zum Bearbeiten melden Sie sich an und öffnen diesen Link dann erneut.", signIn: "Anmelden",
        canEdit: "Sie können dies bearbeiten: Es ist in Ihren Dateien oder unter „%@“.", accept: "Zu „%@“ hinzufügen und bearbeiten",
        invalidTitle: "Link ungültig",
        invalidMessage: "Dieser Link ist ungültig oder abgelaufen. Bitten Sie die Person, die ihn geteilt hat, um einen neuen.")

    static let simplifiedChinese = SharePageStrings(
        sharedFile: "共享文件", sharedFolder: "共享文件夹", sharedBy: "由 %@ 共享 · %@", readOnly: "只读",
        editable: "任何登录并添加它的人都可以编辑", changed: "修改于",
        signInToEdit: "要编辑，请先登录，然后再次打开此链接。", signIn: "登录",
        canEdit: "您可以编辑此项：它在您的文件或“%@”中。", accept: "添加到“%@”并编辑",
        invalidTitle: "链接无效",
        invalidMessage: "此链接无效或已过期。请向共享者索取新链接。")
}

extension PageLanguage {
    /// The text of the share-link pages in this language.
    var sharePage: SharePageStrings {
        switch self {
        case .english: .english
        case .german: .german
        case .simplifiedChinese: .simplifiedChinese
        }
    }

    /// The locale dates are written in on the pages: the language's own conventions.
    var locale: Locale { Locale(identifier: rawValue) }

    /// A file's size as people of this language write it: "16 bytes", "16 Byte", "16字节", "3 KB".
    func size(_ bytes: Int64) -> String {
        bytes.formatted(.byteCount(style: .file).locale(locale))
    }

    /// `date` as people of this language write a date and time, in UTC and saying so:
    /// "Nov 25, 2026, 7:05 PM UTC", "25.11.2026, 19:05 UTC", "2026年11月25日 19:05 UTC".
    func dateTime(_ date: Date) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = .gmt
        let style = Date.FormatStyle(date: .abbreviated, time: .shortened, locale: locale, calendar: calendar, timeZone: .gmt)
        return date.formatted(style) + " UTC"
    }
}
