import AuthenticationServices
import OfficeURLScheme
import SwiftUI

/// The file list: each file opens in Office with `OpenInOfficeButton`.
struct FilesView: View {
    @ObservedObject var drive: Drive
    @Environment(\.webAuthenticationSession) private var webAuthenticationSession

    var body: some View {
        NavigationStack {
            List(drive.files) { file in
                if let invoke = drive.invokeURI(for: file) {
                    OpenInOfficeButton(invoke) { Label(file.name, systemImage: "doc.richtext") }
                } else {
                    Label(file.name, systemImage: "doc")
                }
            }
            .navigationTitle("CloudDrive")
            .toolbar { Button("Sign in") { Task { await drive.signIn(using: webSignIn) } } }
            .safeAreaInset(edge: .bottom) { Text(drive.status).font(.footnote).padding() }
        }
        .onOfficeURL { message in Task { await drive.handle(message, using: webSignIn) } }
    }

    private func webSignIn(_ url: URL, _ callbackScheme: String) async throws -> URL {
        try await webAuthenticationSession.authenticate(using: url, callbackURLScheme: callbackScheme)
    }
}
