import Foundation

/// The words of the web front's trash: the Trash page, the delete confirmation and the "Moved to Trash"
/// notice, one table per ``PageLanguage``. `%@` placeholders are filled by ``PageText/fill(_:_:)``.
struct TrashStrings: Sendable {
    /// The page's title and the link to it.
    var trash: String
    var empty: String
    var restore: String
    var undo: String
    /// "Deleted %@" (a time).
    var deletedAt: String
    /// "Move “%@” to the Trash?"
    var confirmTitle: String
    var confirmExplanation: String
    var confirm: String
    var cancel: String
    /// "Moved to Trash: “%@”"
    var moved: String
    /// "“%@” was restored."
    var restored: String
    /// "The folder “%@” was in was deleted too, so it is back in My files."
    var restoredToRoot: String
    /// "“%@” already exists where it would go back to. Rename that item first."
    var restoreNameTaken: String
    var folderLocked: String
    var backToFiles: String
    var deleteForever: String
    var emptyTrash: String
    /// "Delete “%@” forever?"
    var confirmPurgeTitle: String
    var confirmPurgeExplanation: String
    var confirmEmptyTitle: String
    var confirmEmptyExplanation: String

    static let english = TrashStrings(
        trash: "Trash", empty: "The Trash is empty.", restore: "Restore", undo: "Undo", deletedAt: "Deleted %@",
        confirmTitle: "Move “%@” to the Trash?",
        confirmExplanation: "You can restore it from the Trash until it is emptied.",
        confirm: "Move to Trash", cancel: "Cancel", moved: "Moved to Trash: “%@”", restored: "“%@” was restored.",
        restoredToRoot: "The folder “%@” was in is gone, so it is back in My files.",
        restoreNameTaken: "“%@” already exists where it would go back to. Rename that item first.",
        folderLocked: "A file in this folder is open in Office and locked; try again later.",
        backToFiles: "Back to My files",
        deleteForever: "Delete forever", emptyTrash: "Empty Trash", confirmPurgeTitle: "Delete “%@” forever?",
        confirmPurgeExplanation: "It is removed with its versions and shares. This cannot be undone.",
        confirmEmptyTitle: "Empty the Trash?",
        confirmEmptyExplanation: "Everything in the Trash is removed with its versions and shares. This cannot be undone.")

    static let german = TrashStrings(
        trash: "Papierkorb", empty: "Der Papierkorb ist leer.", restore: "Wiederherstellen", undo: "Rückgängig", deletedAt: "Gelöscht %@",
        confirmTitle: "„%@“ in den Papierkorb verschieben?",
        confirmExplanation: "Sie können es aus dem Papierkorb wiederherstellen, bis er geleert wird.",
        confirm: "In den Papierkorb", cancel: "Abbrechen", moved: "In den Papierkorb verschoben: „%@“",
        restored: "„%@“ wurde wiederhergestellt.",
        restoredToRoot: "Der Ordner von „%@“ existiert nicht mehr; es liegt jetzt wieder in „Meine Dateien“.",
        restoreNameTaken: "„%@“ gibt es am ursprünglichen Ort schon. Benennen Sie das andere Element zuerst um.",
        folderLocked: "Eine Datei in diesem Ordner ist in Office geöffnet und gesperrt; versuchen Sie es später erneut.",
        backToFiles: "Zurück zu „Meine Dateien“",
        deleteForever: "Endgültig löschen", emptyTrash: "Papierkorb leeren", confirmPurgeTitle: "„%@“ endgültig löschen?",
        confirmPurgeExplanation: "Es wird mit seinen Versionen und Freigaben entfernt. Das kann nicht rückgängig gemacht werden.",
        confirmEmptyTitle: "Papierkorb leeren?",
        confirmEmptyExplanation: "Alles im Papierkorb wird mit seinen Versionen und Freigaben entfernt. Das kann nicht rückgängig gemacht werden.")

    static let simplifiedChinese = TrashStrings(
        trash: "回收站", empty: "回收站为空。", restore: "还原", undo: "撤销", deletedAt: "删除于 %@",
        confirmTitle: "将“%@”移到回收站？",
        confirmExplanation: "在回收站清空之前，您可以从回收站还原它。",
        confirm: "移到回收站", cancel: "取消", moved: "已移到回收站：“%@”", restored: "已还原“%@”。",
        restoredToRoot: "“%@”原来所在的文件夹已不存在，因此已还原到“我的文件”。",
        restoreNameTaken: "原位置已存在“%@”。请先重命名该项目。",
        folderLocked: "此文件夹中的某个文件已在 Office 中打开并被锁定，请稍后再试。",
        backToFiles: "返回“我的文件”",
        deleteForever: "永久删除", emptyTrash: "清空回收站", confirmPurgeTitle: "永久删除“%@”？",
        confirmPurgeExplanation: "它将连同其版本和共享一起被删除。此操作无法撤销。",
        confirmEmptyTitle: "清空回收站？",
        confirmEmptyExplanation: "回收站中的所有内容将连同其版本和共享一起被删除。此操作无法撤销。")
}

extension PageLanguage {
    /// The text of the web front's trash in this language.
    var trash: TrashStrings {
        switch self {
        case .english: .english
        case .german: .german
        case .simplifiedChinese: .simplifiedChinese
        }
    }
}
