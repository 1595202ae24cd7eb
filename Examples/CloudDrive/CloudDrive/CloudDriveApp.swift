import SwiftUI

/// The app: one window listing the host's files.
@main
struct CloudDriveApp: App {
    @StateObject private var drive = Drive(configuration: .localHost)

    var body: some Scene {
        WindowGroup {
            FilesView(drive: drive)
        }
    }
}
