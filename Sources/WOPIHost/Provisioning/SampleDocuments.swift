import Foundation

/// The documents a new host starts with: a workbook, a document and a presentation.
///
/// They are real Office Open XML files kept as resources (`Resources/SampleDocuments`; its README
/// says how they were made), small and complete enough that Excel, Word and PowerPoint open them
/// without offering a repair.
///
/// ```swift
/// for (fileName, url) in try SampleDocuments.demoSet {
///     try FileManager.default.copyItem(at: url, to: folder.appendingPathComponent(fileName))
/// }
/// ```
public enum SampleDocuments {
    /// The file names, in the order a new host lists them. None holds a character WOPI hosts or
    /// Office refuse in names (`\ / : * ? " < > | # { } ^ [ ] ` %`).
    public static let fileNames = ["Q4 budget.xlsx", "Welcome.docx", "Pitch.pptx"]

    /// Each sample's name and where its file is.
    ///
    /// - Throws: `ResourceBundle.Missing` when the resource bundle was not installed with the code.
    public static var demoSet: [(fileName: String, url: URL)] {
        get throws {
            let folder = try HostResources.folder("SampleDocuments")
            return fileNames.map { ($0, folder.appendingPathComponent($0, isDirectory: false)) }
        }
    }
}
