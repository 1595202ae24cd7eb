import Foundation
import WOPIHTTPClient

/// Builds the HTTP request for a ``RequestDefinition`` exactly as Microsoft's runner does: URL, headers, body.
///
/// URL: the WOPISrc plus the kind's path suffix and `?access_token=…&access_token_ttl=…`, or, with
/// `OverrideUrl`, the saved URL (its own `access_token` then authorises the request). Headers: the
/// kind's own (`X-WOPI-Lock`, UTF-7 names, …), then `X-WOPI-Override`, then `Authorization: Bearer <token>`.
struct RequestBuilder: Sendable {
    /// Why a request could not be built.
    struct Failure: Error, Sendable, Hashable {
        let reason: String
    }

    let wopiSrc: String
    let accessToken: String
    let accessTokenTTL: Int64
    let resources: [String: TestResource]
    let userAgent: String?
    /// Signs every request with proof headers when set.
    var proofSigner: ValidatorProofSigner?

    func build(_ definition: RequestDefinition, state: SavedState) throws(Failure) -> TransportRequest {
        let kind = definition.kind
        if kind == .getFromFileUrl {
            // A plain download of a URL the host handed out: no token, no WOPI headers.
            guard let url = try overrideURL(definition, state: state) else {
                throw Failure(reason: "GetFromFileUrl has no URL: OverrideUrl '\(definition.overrideURL ?? "")' resolved to nothing")
            }
            return signed(try request(kind.method, url, headers: [], body: nil, definition), definition)
        }

        var token = accessToken
        var url: String
        if let override = try overrideURL(definition, state: state) {
            url = override
            token = URLQuery.parameter("access_token", in: override) ?? ""
        } else {
            // The original never sends Delete* to the WOPISrc, so the .wopitest file under test survives.
            if kind == .deleteFile || kind == .deleteContainer {
                throw Failure(reason: "\(kind.rawValue) needs a URL from OverrideUrl '\(definition.overrideURL ?? "")', but the state holds none")
            }
            url = wopiURL(suffix: kind.pathSuffix)
        }

        for case .accessToken(let mutation) in definition.mutators {
            let mutated = mutation ?? UUID().uuidString.lowercased()
            if mutated != token {
                token = mutated
                url = URLQuery.settingParameter("access_token", to: mutated, in: url)
            }
            break
        }

        var headers = try kindHeaders(definition, state: state)
        if let wopiOverride = kind.wopiOverride { headers.append(HeaderField("X-WOPI-Override", wopiOverride)) }
        headers.append(HeaderField("Authorization", "Bearer " + token))
        if let userAgent { headers.append(HeaderField("User-Agent", userAgent)) }

        var body: Data?
        switch kind {
        case .putFile, .putRelativeFile: body = Data(try resourceContent(definition))
        case .putUserInfo, .addActivities: body = Data((definition.body ?? "").utf8)
        default: body = kind.method == "POST" ? Data() : nil
        }
        return signed(try request(kind.method, url, headers: headers, body: body, definition), definition)
    }

    /// The request, once `url` is known to be one; a host can hand out anything as a URL to request next.
    private func request(_ method: String, _ url: String, headers: [HeaderField], body: Data?,
                         _ definition: RequestDefinition) throws(Failure) -> TransportRequest {
        guard let parsed = URL(string: url), parsed.scheme != nil else {
            throw Failure(reason: "\(definition.kind.rawValue) has no valid URL to request"
                          + (definition.overrideURL.map { ": OverrideUrl '\($0)' resolved to something that is not a URL" } ?? ""))
        }
        return TransportRequest(method: method, url: parsed, headers: headers, body: body)
    }

    /// `request` with the proof headers added, when a signer is set.
    private func signed(_ request: TransportRequest, _ definition: RequestDefinition) -> TransportRequest {
        guard let proofSigner else { return request }
        let mutator = definition.mutators.first { if case .proofKey = $0 { true } else { false } }
        let proofs = proofSigner.headers(for: request, mutator: mutator)
        return TransportRequest(method: request.method, url: request.url, headers: request.headers + proofs, body: request.body)
    }

    /// The WOPISrc with the path suffix and token parameters appended the way the original does it.
    func wopiURL(suffix: String?) -> String {
        var url = wopiSrc + (suffix ?? "")
        if !wopiSrc.contains("?") {
            url += "?"
        } else if !wopiSrc.hasSuffix("&") {
            url += "&"
        }
        return url + "access_token=" + URLQuery.keyValueEncode(accessToken) + "&access_token_ttl=\(accessTokenTTL)"
    }

    /// Resolves `OverrideUrl`: `nil` when absent or when the saved state has no value for it.
    private func overrideURL(_ definition: RequestDefinition, state: SavedState) throws(Failure) -> String? {
        guard let raw = definition.overrideURL, !raw.isEmpty else { return nil }
        var resolved = raw
        let marker = "$State:"
        if raw.hasPrefix(marker) {
            let key = String(raw.dropFirst(marker.count))
            switch state.lookup(key) {
            case .missing:
                throw Failure(reason: "OverrideUrl \(raw) is not in the saved state; did the request that saves it fail?")
            case .empty:
                return nil
            case .value(let value):
                resolved = value
            }
        }
        guard let suffix = definition.kind.pathSuffix else { return resolved }
        return URLQuery.appendingPath(suffix, to: resolved)
    }

    private func resourceContent(_ definition: RequestDefinition) throws(Failure) -> [UInt8] {
        guard let id = definition.resourceId, let resource = resources[id] else {
            throw Failure(reason: "resource '\(definition.resourceId ?? "")' does not exist")
        }
        return resource.content
    }

    /// The kind-specific headers; an absent value is sent empty, as .NET's header collection does with null.
    private func kindHeaders(_ r: RequestDefinition, state: SavedState) throws(Failure) -> [HeaderField] {
        switch r.kind {
        case .getFile:
            return nonEmpty("X-WOPI-Lock", r.newLock)
        case .putFile:
            return nonEmpty("X-WOPI-Lock", r.lock)
        case .lock:
            var headers = [HeaderField("X-WOPI-Lock", r.lock ?? "")]
            if let visible = r.lockUserVisible { headers.append(HeaderField("X-WOPI-LockUserVisible", visible ? "True" : "False")) }
            return headers
        case .unlock, .refreshLock:
            return [HeaderField("X-WOPI-Lock", r.lock ?? "")]
        case .unlockAndRelock:
            return [HeaderField("X-WOPI-Lock", r.newLock ?? ""), HeaderField("X-WOPI-OldLock", r.oldLock ?? "")]
        case .putRelativeFile:
            let size = try resourceContent(r).count
            return [HeaderField("X-WOPI-Size", String(size))] + targetHeaders(r, name: r.requestedName ?? "", allowOverwrite: true)
        case .createChildFile:
            return targetHeaders(r, name: r.requestedName ?? "", allowOverwrite: true)
        case .createChildContainer:
            return targetHeaders(r, name: r.folderName ?? "", allowOverwrite: false)
        case .renameFile:
            return [
                HeaderField("X-WOPI-RequestedName", UTF7.encode(r.requestedName ?? "")),
                HeaderField("X-WOPI-Lock", r.lock ?? ""),
                HeaderField("X-WOPI-CoauthLockId", r.coauthLockId ?? ""),
            ]
        case .renameContainer:
            return [HeaderField("X-WOPI-RequestedName", UTF7.encode(r.requestedName ?? ""))]
        case .getShareUrl:
            return [HeaderField("X-WOPI-UrlType", r.urlType ?? "")]
        case .enumerateChildren:
            return nonEmpty("X-WOPI-FileExtensionFilterList", r.fileExtensionFilterList)
        case .getNewAccessToken:
            return [HeaderField("X-WOPI-WopiSrc", state[SavedState.originalWOPISrcKey] ?? wopiSrc)]
        default:
            return []
        }
    }

    private func targetHeaders(_ r: RequestDefinition, name: String, allowOverwrite: Bool) -> [HeaderField] {
        let encoded = UTF7.encodeForTargetHeader(name)
        switch r.targetMode {
        case .suggested:
            return [HeaderField("X-WOPI-SuggestedTarget", encoded)]
        case .exactName:
            var headers = [HeaderField("X-WOPI-RelativeTarget", encoded)]
            if allowOverwrite, let overwrite = r.overwriteRelative {
                headers.append(HeaderField("X-WOPI-OverwriteRelativeTarget", overwrite ? "True" : "False"))
            }
            return headers
        case .conflicting:
            return [HeaderField("X-WOPI-SuggestedTarget", encoded), HeaderField("X-WOPI-RelativeTarget", encoded)]
        case nil:
            return []
        }
    }

    private func nonEmpty(_ name: String, _ value: String?) -> [HeaderField] {
        guard let value, !value.isEmpty else { return [] }
        return [HeaderField(name, value)]
    }
}
