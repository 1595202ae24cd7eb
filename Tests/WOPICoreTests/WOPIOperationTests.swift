import Testing
import WOPICore

@Suite struct WOPIOperationTests {
    @Test("WOPI requests are named after their operation, never their URL", arguments: [
        ("GET", "/wopi/files/abc", nil, false, "CheckFileInfo"),
        ("GET", "/wopi/files/abc/contents", nil, false, "GetFile"),
        ("POST", "/wopi/files/abc/contents", "PUT", false, "PutFile"),
        ("POST", "/wopi/files/abc", "LOCK", false, "Lock"),
        ("POST", "/wopi/files/abc", "LOCK", true, "UnlockAndRelock"),
        ("POST", "/wopi/files/abc", "unlock", false, "Unlock"),
        ("POST", "/wopi/files/abc", "REFRESH_LOCK", false, "RefreshLock"),
        ("POST", "/wopi/files/abc", "GET_LOCK", false, "GetLock"),
        ("POST", "/wopi/files/abc", "PUT_RELATIVE", false, "PutRelativeFile"),
        ("POST", "/wopi/files/abc", "RENAME_FILE", false, "RenameFile"),
        ("POST", "/wopi/files/abc", "DELETE", false, "DeleteFile"),
        ("POST", "/wopi/files/abc", "BOGUS", false, "Unknown"),
        ("POST", "/wopi/files/abc", nil, false, "Unknown"),
        ("GET", "/wopi/files/abc/ancestry", nil, false, "EnumerateAncestors"),
        ("GET", "/wopi/containers/abc/children", nil, false, "EnumerateChildren"),
        ("POST", "/wopi/containers/abc", "CREATE_CHILD_FILE", false, "CreateChildFile"),
        ("GET", "/wopi/ecosystem", nil, false, "CheckEcosystem"),
        ("GET", "/wopi/ecosystem/root_container_pointer", nil, false, "GetRootContainer"),
        ("POST", "/oauth2/token", nil, false, "OAuthToken"),
        ("GET", "/share/secret-token", nil, false, "Share"),
        ("GET", "/health/ready", nil, false, "Health"),
        ("GET", "/some/where/else", nil, false, "Other"),
        ("DELETE", "/wopi/files/abc", nil, false, "Other"),
    ] as [(String, String, String?, Bool, String)])
    func naming(method: String, path: String, override: String?, oldLock: Bool, expected: String) {
        #expect(WOPIOperation(method: method, path: path, override: override, hasOldLock: oldLock).name == expected)
    }
}
