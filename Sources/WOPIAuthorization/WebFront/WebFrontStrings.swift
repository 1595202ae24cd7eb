import Foundation

/// The words of the web front's file pages, one table per ``PageLanguage``; the sign-in form
/// itself reuses ``SignInStrings``.
///
/// `%@` placeholders are filled by ``PageText/fill(_:_:)``; the page templates escape the result.
struct WebFrontStrings: Sendable {
    var myFiles: String
    var signOut: String
    /// "Signed in as %@".
    var signedInAs: String
    var language: String
    var breadcrumbs: String
    var name: String
    var size: String
    var modified: String
    var emptyFolder: String
    var folder: String
    var download: String
    /// "Open in %@" (Word, Excel, PowerPoint).
    var openIn: String
    /// "View in %@".
    var viewIn: String
    /// "Get %@ from the App Store".
    var getApp: String
    var actions: String
    var rename: String
    var newName: String
    var delete: String
    var share: String
    var newFolder: String
    var folderName: String
    var create: String
    var upload: String
    var chooseFiles: String
    /// "Files up to %@ each."
    var sizeLimit: String
    var uploading: String
    var uploaded: String
    var uploadFailed: String
    /// "%@ is larger than the limit of %@."
    var tooLarge: String
    var shareTitle: String
    /// "Anyone with this link can view %@ (read-only) until %@."
    var shareExplanation: String
    var back: String
    var formExpired: String
    var notFound: String
    /// "The name is not allowed: %@"
    var badName: String
    /// "“%@” already exists here."
    var nameTaken: String
    var folderNotEmpty: String
    var fileLocked: String
    var noFilesChosen: String
    /// The root page's section of items others shared with the user.
    var sharedWithMe: String
    /// "Shared by %@ · you can edit" / "… · view only": %@ is the owner's name.
    var sharedByEditor: String
    var sharedByViewer: String
    /// The title and message of the page shown when the store cannot be reached (503).
    var unavailableTitle: String
    var unavailable: String
    /// The link that opens a file in a browser editor (`/open/<id>`).
    var openInBrowser: String = "Open in browser"
    /// The editor frame's accessible name: "Editor for %@".
    var editorFrameTitle: String = "Editor for %@"
    /// The host page's refusal when no browser editor opens the file that way.
    var noBrowserEditor: String = "No browser editor can open this file."
    /// The button that makes a new document from a template and opens it in a browser editor.
    var newFromTemplate: String = "New document from template"
    /// The refusal when that is asked of a file that is no template (or no browser editor fills it).
    var notATemplate: String = "This file is not a template a browser editor can fill."

    static let english = WebFrontStrings(
        myFiles: "My files", signOut: "Sign out", signedInAs: "Signed in as %@", language: "Language",
        breadcrumbs: "Folder path", name: "Name", size: "Size", modified: "Modified", emptyFolder: "This folder is empty.",
        folder: "Folder", download: "Download", openIn: "Open in %@", viewIn: "View in %@", getApp: "Get %@ from the App Store",
        actions: "More", rename: "Rename", newName: "New name", delete: "Delete", share: "Create share link",
        newFolder: "New folder", folderName: "Folder name", create: "Create", upload: "Upload", chooseFiles: "Files to upload",
        sizeLimit: "Files up to %@ each.", uploading: "Uploading…", uploaded: "Uploaded", uploadFailed: "The upload failed.",
        tooLarge: "%@ is larger than the limit of %@.", shareTitle: "Share link",
        shareExplanation: "Anyone with this link can view %@ (read-only) until %@.", back: "Back to the folder",
        formExpired: "This form has expired. Reload the page and try again.", notFound: "This file or folder does not exist.",
        badName: "The name is not allowed: %@", nameTaken: "“%@” already exists here.",
        folderNotEmpty: "Only empty folders can be deleted.", fileLocked: "The file is open in Office and locked; try again later.",
        noFilesChosen: "Choose at least one file.",
        sharedWithMe: "Shared with me", sharedByEditor: "Shared by %@ · you can edit", sharedByViewer: "Shared by %@ · view only",
        unavailableTitle: "Temporarily unavailable",
        unavailable: "Your files cannot be reached right now. Please try again in a moment.")

    static let german = WebFrontStrings(
        myFiles: "Meine Dateien", signOut: "Abmelden", signedInAs: "Angemeldet als %@", language: "Sprache",
        breadcrumbs: "Ordnerpfad", name: "Name", size: "Größe", modified: "Geändert", emptyFolder: "Dieser Ordner ist leer.",
        folder: "Ordner", download: "Herunterladen", openIn: "In %@ öffnen", viewIn: "In %@ ansehen", getApp: "%@ im App Store laden",
        actions: "Mehr", rename: "Umbenennen", newName: "Neuer Name", delete: "Löschen", share: "Freigabelink erstellen",
        newFolder: "Neuer Ordner", folderName: "Ordnername", create: "Erstellen", upload: "Hochladen", chooseFiles: "Dateien zum Hochladen",
        sizeLimit: "Dateien bis je %@.", uploading: "Wird hochgeladen …", uploaded: "Hochgeladen", uploadFailed: "Das Hochladen ist fehlgeschlagen.",
        tooLarge: "%@ ist größer als die Grenze von %@.", shareTitle: "Freigabelink",
        shareExplanation: "Alle mit diesem Link können %@ bis %@ ansehen (nur lesen).", back: "Zurück zum Ordner",
        formExpired: "Dieses Formular ist abgelaufen. Laden Sie die Seite neu und versuchen Sie es erneut.",
        notFound: "Diese Datei oder dieser Ordner existiert nicht.",
        badName: "Der Name ist nicht erlaubt: %@", nameTaken: "„%@“ gibt es hier schon.",
        folderNotEmpty: "Nur leere Ordner können gelöscht werden.",
        fileLocked: "Die Datei ist in Office geöffnet und gesperrt; versuchen Sie es später erneut.",
        noFilesChosen: "Wählen Sie mindestens eine Datei.",
        sharedWithMe: "Mit mir geteilt", sharedByEditor: "Geteilt von %@ · Sie können bearbeiten",
        sharedByViewer: "Geteilt von %@ · nur ansehen",
        unavailableTitle: "Vorübergehend nicht verfügbar",
        unavailable: "Ihre Dateien sind gerade nicht erreichbar. Bitte versuchen Sie es gleich noch einmal.",
        openInBrowser: "Im Browser öffnen", editorFrameTitle: "Editor für %@",
        noBrowserEditor: "Kein Browser-Editor kann diese Datei öffnen.",
        newFromTemplate: "Neues Dokument aus Vorlage",
        notATemplate: "Diese Datei ist keine Vorlage, die ein Browser-Editor ausfüllen kann.")

    static let simplifiedChinese = WebFrontStrings(
        myFiles: "我的文件", signOut: "退出登录", signedInAs: "已登录为 %@", language: "语言",
        breadcrumbs: "文件夹路径", name: "名称", size: "大小", modified: "修改时间", emptyFolder: "此文件夹为空。",
        folder: "文件夹", download: "下载", openIn: "在 %@ 中打开", viewIn: "在 %@ 中查看", getApp: "从 App Store 获取 %@",
        actions: "更多", rename: "重命名", newName: "新名称", delete: "删除", share: "创建共享链接",
        newFolder: "新建文件夹", folderName: "文件夹名称", create: "创建", upload: "上传", chooseFiles: "要上传的文件",
        sizeLimit: "每个文件最大 %@。", uploading: "正在上传…", uploaded: "已上传", uploadFailed: "上传失败。",
        tooLarge: "%@ 超过了 %@ 的大小限制。", shareTitle: "共享链接",
        shareExplanation: "任何拥有此链接的人都可以查看 %@（只读），有效期至 %@。", back: "返回文件夹",
        formExpired: "此表单已过期。请重新加载页面后再试。", notFound: "此文件或文件夹不存在。",
        badName: "不允许使用此名称：%@", nameTaken: "此处已存在“%@”。",
        folderNotEmpty: "只能删除空文件夹。", fileLocked: "该文件已在 Office 中打开并被锁定，请稍后再试。",
        noFilesChosen: "请至少选择一个文件。",
        sharedWithMe: "与我共享", sharedByEditor: "由 %@ 共享 · 您可以编辑", sharedByViewer: "由 %@ 共享 · 仅查看",
        unavailableTitle: "暂时无法使用",
        unavailable: "暂时无法访问您的文件，请稍后再试。",
        openInBrowser: "在浏览器中打开", editorFrameTitle: "%@ 的编辑器", noBrowserEditor: "没有可打开此文件的浏览器编辑器。",
        newFromTemplate: "从模板新建文档", notATemplate: "此文件不是浏览器编辑器可使用的模板。")
}

extension PageLanguage {
    /// The text of the web front's file pages in this language.
    var webFront: WebFrontStrings {
        switch self {
        case .english: .english
        case .german: .german
        case .simplifiedChinese: .simplifiedChinese
        }
    }

    /// The language's own name, for the switch.
    var nativeName: String {
        switch self {
        case .english: "English"
        case .german: "Deutsch"
        case .simplifiedChinese: "简体中文"
        }
    }
}
