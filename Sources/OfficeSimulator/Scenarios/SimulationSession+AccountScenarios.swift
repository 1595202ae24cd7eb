import Foundation
import OfficeURLScheme
import WOPICore
import WOPIHTTPClient

/// The scenarios that go back to the provider's bootstrapper and OAuth server: browse ("Add a
/// Place") and token-refresh (wopi_requirements.rst, GetRootContainer.rst, RFC 6749 §6).
extension SimulationSession {
    /// The most folders and files `browse` visits, so a large account still ends quickly.
    static let browseFolderLimit = 25
    static let browseFileLimit = 100
    /// How deep `browse` goes below the root.
    static let browseDepthLimit = 4

    /// The file extensions Office for iOS lists (Word, Excel and PowerPoint), for `X-WOPI-FileExtensionFilterList`.
    static var officeExtensions: [String] {
        [OfficeApp.word, .excel, .powerpoint].flatMap(\.fileExtensions)
    }

    // MARK: browse

    /// GET_ROOT_CONTAINER, then down the folders: CheckContainerInfo, EnumerateChildren with the
    /// extension filter, CheckFileInfo on each Office file. The licensing properties must be equal on
    /// file and folder, and no name may hold a character Office refuses.
    mutating func browse(_ access: Access) async throws(SimulationFailure) -> SimulationResult {
        guard let oauth = access.oauth else { return notApplicable("browse needs the bootstrapper") }
        let headers = bootstrapperHeaders(oauth.accessToken, oauth.grant) + [SimulatorHeader("X-WOPI-EcosystemOperation", "GET_ROOT_CONTAINER")]
        let response = try await send(SimulatorRequest(method: "POST", url: oauth.bootstrapperURL, headers: headers, body: Data()), .getRootContainer)
        guard response.status == 200 else {
            throw SimulationFailure(step: .getRootContainer, reason: "GET_ROOT_CONTAINER must answer 200 (Office for iOS requires it)", response: response)
        }
        guard let pointer = JSONValue.object(from: response.body)?["RootContainerInfo"]?.objectValue?["ContainerPointer"]?.objectValue,
              let rootName = pointer["Name"]?.stringValue, let rootURL = pointer["Url"]?.stringValue, let root = WOPIRequests(pointer: rootURL) else {
            throw SimulationFailure(step: .getRootContainer,
                                    reason: "the answer needs RootContainerInfo.ContainerPointer with Name and a Url carrying access_token", response: response)
        }
        report(.getRootContainer, "root folder '\(rootName)'")

        var queue: [(path: String, wopi: WOPIRequests, depth: Int)] = [(rootName, root, 0)]
        var folders = 0
        var files = 0
        let extensions = Self.officeExtensions
        while !queue.isEmpty, folders < Self.browseFolderLimit {
            let (path, folder, depth) = queue.removeFirst()
            folders += 1
            let info = try await send(folder.checkFileInfo, .checkContainerInfo)
            guard info.status == 200, let container = JSONValue.object(from: info.body) else {
                throw SimulationFailure(step: .checkContainerInfo, reason: "CheckContainerInfo on '\(path)' must answer 200 with a JSON object", response: info)
            }
            guard let name = container["Name"]?.stringValue else {
                throw SimulationFailure(step: .checkContainerInfo, reason: "'\(path)': the required property Name is missing", response: info)
            }
            try refuseCharacters(name, "the folder name", .checkContainerInfo, info)
            var licensing: [String: Bool] = [:]
            for property in CheckFileInfoSummary.requiredBooleans {
                guard let value = container[property]?.boolValue else {
                    throw SimulationFailure(step: .checkContainerInfo,
                                            reason: "'\(path)': \(property) must be a Boolean; Office for iOS compares it with each file's", response: info)
                }
                licensing[property] = value
            }
            report(.checkContainerInfo, "'\(path)': " + CheckFileInfoSummary.requiredBooleans.map { "\($0) \(licensing[$0] ?? false)" }.joined(separator: ", "))

            let listing = try await send(folder.enumerateChildren(extensions: extensions), .enumerateChildren)
            guard listing.status == 200, let children = JSONValue.object(from: listing.body) else {
                throw SimulationFailure(step: .enumerateChildren, reason: "EnumerateChildren on '\(path)' must answer 200 with a JSON object", response: listing)
            }
            let childFolders = try pointers(children["ChildContainers"], "ChildContainers", path, listing)
            let childFiles = try pointers(children["ChildFiles"], "ChildFiles", path, listing)
            for (fileName, _) in childFiles {
                let ext = Self.split(fileName).ext.dropFirst().lowercased()
                guard extensions.contains(ext) else {
                    throw SimulationFailure(step: .enumerateChildren,
                                            reason: "'\(path)' lists '\(fileName)', which X-WOPI-FileExtensionFilterList excludes; the host must filter", response: listing)
                }
            }
            report(.enumerateChildren, "'\(path)': \(childFolders.count) folder\(childFolders.count == 1 ? "" : "s"), \(childFiles.count) Office file\(childFiles.count == 1 ? "" : "s")")
            if depth < Self.browseDepthLimit {
                queue += childFolders.map { (path: "\(path)/\($0.0)", wopi: $0.1, depth: depth + 1) }
            }

            for (fileName, file) in childFiles where files < Self.browseFileLimit {
                files += 1
                let summary = try await checkFileInfo(file, step: .checkListedFileInfo, bootstrapUserID: access.bootstrapUserID)
                guard summary.baseFileName == fileName else {
                    throw SimulationFailure(step: .checkListedFileInfo, reason: "'\(path)' lists '\(fileName)' but its CheckFileInfo says BaseFileName '\(summary.baseFileName)'")
                }
                let fileLicensing = ["IsEduUser": summary.isEduUser, "LicenseCheckForEditIsEnabled": summary.licenseCheckForEditIsEnabled]
                for property in CheckFileInfoSummary.requiredBooleans where fileLicensing[property] != licensing[property] {
                    throw SimulationFailure(step: .checkListedFileInfo,
                                            reason: "'\(path)/\(fileName)': \(property) is \(fileLicensing[property] ?? false) on the file but \(licensing[property] ?? false) on its folder; Office for iOS requires them equal")
                }
                report(.checkListedFileInfo, "'\(path)/\(fileName)': \(summary.size) bytes, licensing equal to its folder's")
            }
        }
        return SimulationResult(scenario: .browse, steps: steps, versionBefore: nil, versionAfter: nil, savedContent: nil, passback: nil)
    }

    /// The `[{Name, Url}]` list of an EnumerateChildren answer, each name checked.
    private func pointers(_ value: JSONValue?, _ property: String, _ path: String, _ response: SimulatorResponse)
        throws(SimulationFailure) -> [(String, WOPIRequests)] {
        guard case .array(let items)? = value else {
            throw SimulationFailure(step: .enumerateChildren, reason: "'\(path)': \(property) must be an array", response: response)
        }
        var result: [(String, WOPIRequests)] = []
        for item in items {
            guard let object = item.objectValue, let name = object["Name"]?.stringValue, let url = object["Url"]?.stringValue,
                  let wopi = WOPIRequests(pointer: url) else {
                throw SimulationFailure(step: .enumerateChildren, reason: "'\(path)': each of \(property) needs Name and a Url carrying access_token", response: response)
            }
            try refuseCharacters(name, "'\(path)' lists a name", .enumerateChildren, response)
            result.append((name, wopi))
        }
        return result
    }

    /// issues/invalidcharacters.rst: Office for iOS refuses names holding any of these characters.
    private func refuseCharacters(_ name: String, _ what: String, _ step: SimulationStep.Name, _ response: SimulatorResponse) throws(SimulationFailure) {
        if let bad = name.first(where: { WOPIName.refusedCharacters.contains($0) }) {
            throw SimulationFailure(step: step, reason: "\(what) '\(name.prefix(100))' contains '\(bad)', which Office for iOS refuses", response: response)
        }
    }

    // MARK: token-refresh

    /// The OAuth access token is treated as expired: the refresh-token grant (RFC 6749 §6) with `sc`
    /// sent back, GET_NEW_ACCESS_TOKEN with the new token, and the session carries on (open, edit, save).
    mutating func tokenRefresh(_ access: Access) async throws(SimulationFailure) -> SimulationResult {
        guard var oauth = access.oauth else { return notApplicable("token-refresh needs the OAuth server") }
        guard let refreshToken = oauth.refreshToken else {
            throw SimulationFailure(step: .refreshToken,
                                    reason: "the token endpoint gave no refresh_token, so when the access token expires Office must send the user through sign-in again")
        }
        let form: [(name: String, value: String)] = [
            ("grant_type", "refresh_token"), ("refresh_token", refreshToken),
            ("client_id", options.registration.clientID), ("client_secret", options.registration.clientSecret),
        ]
        var headers = [SimulatorHeader("Content-Type", "application/x-www-form-urlencoded"), SimulatorHeader("Accept", "application/json"),
                       SimulatorHeader("User-Agent", WOPIRequests.userAgent)]
        if let sc = oauth.grant.sessionContext { headers.append(SimulatorHeader("X-WOPI-SessionContext", sc)) }
        let response = try await send(SimulatorRequest(method: "POST", url: oauth.tokenEndpoint, headers: headers,
                                                       body: Data(FormEncoding.encode(form).utf8)), .refreshToken)
        guard response.status == 200 else {
            throw SimulationFailure(step: .refreshToken, reason: "the refresh-token grant must answer 200", response: response)
        }
        guard let object = JSONValue.object(from: response.body), let token = object["access_token"]?.stringValue, !token.isEmpty else {
            throw SimulationFailure(step: .refreshToken, reason: "the answer must be a JSON object with an access_token string", response: response)
        }
        guard object["token_type"]?.stringValue?.lowercased() == "bearer" else {
            throw SimulationFailure(step: .refreshToken, reason: "token_type must be \"Bearer\" (RFC 6750)", response: response)
        }
        let rotated = object["refresh_token"]?.stringValue
        report(.refreshToken, "POST \(oauth.tokenEndpoint.absoluteString) grant_type=refresh_token: new access token\(rotated != nil ? ", new refresh token" : "")\(oauth.grant.sessionContext != nil ? "; sc sent back" : "")")
        oauth.accessToken = token
        oauth.refreshToken = rotated ?? refreshToken
        let wopiToken = try await newAccessToken(oauth, wopiSrc: invoke.documentURL, step: .getNewAccessTokenAfterRefresh)
        let refreshed = Access(wopi: WOPIRequests(wopiSrc: access.wopi.wopiSrc, accessToken: wopiToken), bootstrapUserID: access.bootstrapUserID,
                               oauth: oauth)
        return try await openEditSave(refreshed)
    }
}
