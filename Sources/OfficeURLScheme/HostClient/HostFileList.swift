import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The user's files on a WOPI host, read the way Office reads them: the bootstrapper's
/// `GET_ROOT_CONTAINER` with the app's OAuth token (Bootstrapper.rst), then the root
/// container's EnumerateChildren (EnumerateChildren.rst).
///
/// It builds the requests and reads the answers; your app sends them with `URLSession`. Each
/// ``HostedFile`` then gives the WOPI invoke URI that opens it in Office
/// (``HostedFile/invokeURI(service:user:passbackScheme:context:)``).
public struct HostFileList: Sendable, Hashable {
    /// The user's root container, from ``rootContainer(from:)``.
    public struct RootContainer: Sendable, Hashable {
        /// `Bootstrap.UserId`: the user's ID on the host, the `|e|` of invoke URIs.
        public let userID: String
        /// The container's name.
        public let name: String
        /// The container's WOPI URL, with its access token.
        public let url: URL
    }

    /// The host's bootstrapper, for example `http://127.0.0.1:8080/wopibootstrapper`.
    public let bootstrapper: URL

    /// Lists files through the bootstrapper at `bootstrapper`.
    public init(bootstrapper: URL) {
        self.bootstrapper = bootstrapper
    }

    /// `POST /wopibootstrapper` with `X-WOPI-EcosystemOperation: GET_ROOT_CONTAINER` and the app's bearer token.
    public func rootContainerRequest(accessToken: String) -> URLRequest {
        var request = URLRequest(url: bootstrapper)
        request.httpMethod = "POST"
        request.setValue("Bearer \(accessToken)", forHTTPHeaderField: "Authorization")
        request.setValue("GET_ROOT_CONTAINER", forHTTPHeaderField: "X-WOPI-EcosystemOperation")
        return request
    }

    /// Reads the bootstrapper's answer: `Bootstrap.UserId` and `RootContainerInfo.ContainerPointer`.
    ///
    /// - Throws: ``HostSignInError/notJSON`` or ``HostSignInError/missingField(_:)``.
    public func rootContainer(from data: Data) throws(HostSignInError) -> RootContainer {
        let object = try HostSignIn.jsonObject(data)
        guard let userID = (object["Bootstrap"] as? [String: Any])?["UserId"] as? String else { throw .missingField("Bootstrap.UserId") }
        let pointer = (object["RootContainerInfo"] as? [String: Any])?["ContainerPointer"] as? [String: Any]
        guard let name = pointer?["Name"] as? String, let text = pointer?["Url"] as? String, let url = URL(string: text) else {
            throw .missingField("RootContainerInfo.ContainerPointer")
        }
        return RootContainer(userID: userID, name: name, url: url)
    }

    /// `GET <container>/children?access_token=…` (EnumerateChildren).
    public func childrenRequest(of container: RootContainer) -> URLRequest {
        var components = URLComponents(url: container.url, resolvingAgainstBaseURL: false) ?? URLComponents()
        components.path += components.path.hasSuffix("/") ? "children" : "/children"
        return URLRequest(url: components.url ?? container.url)
    }

    /// Reads EnumerateChildren's `ChildFiles`, in the host's order.
    ///
    /// - Throws: ``HostSignInError/notJSON`` or ``HostSignInError/missingField(_:)``.
    public func files(from data: Data) throws(HostSignInError) -> [HostedFile] {
        let object = try HostSignIn.jsonObject(data)
        guard let children = object["ChildFiles"] as? [[String: Any]] else { throw .missingField("ChildFiles") }
        return try children.map { child throws(HostSignInError) in
            guard let name = child["Name"] as? String, let text = child["Url"] as? String, let url = URL(string: text) else {
                throw .missingField("ChildFiles[].Name/Url")
            }
            return HostedFile(name: name, url: url, version: child["Version"] as? String)
        }
    }
}
