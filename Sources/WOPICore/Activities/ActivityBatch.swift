import Foundation

/// An AddActivities request body, read by the rules of docs/rest/src/files/AddActivities.rst.
///
/// The body must be a JSON object whose `Activities` member is an array of objects, each with a string
/// `Id` and a string `Type`; anything else "couldn't be deserialized" and ``init(json:)`` throws (the host
/// answers 400). Within a well-formed batch each activity is judged alone: a type the host does not
/// know is ``Status/unknownType`` (never a 400, as the docs require); a comment or mention whose id is
/// not a UUID or whose `Data`/`People` break the documented shape is ``Status/permanentFailure``; the
/// rest are ``Entry/Outcome/accepted(_:)``. Unknown members are ignored everywhere, for compatibility.
public struct ActivityBatch: Sendable, Hashable {
    /// The status codes of an ActivityResponse object.
    public enum Status: Int, Sendable, Hashable, Codable {
        /// `0`: the activity was recorded (or was already).
        case success = 0
        /// `1`: the host could not record it now; the client may send it again.
        case retryableFailure = 1
        /// `2`: the host will never record it (a bad shape).
        case permanentFailure = 2
        /// `3`: the host does not record activities of this type.
        case unknownType = 3
    }

    /// One activity of the batch, in request order.
    public struct Entry: Sendable, Hashable {
        /// What the host makes of the activity.
        public enum Outcome: Sendable, Hashable {
            /// A comment or mention to record.
            case accepted(WOPIActivity)
            /// A type the host does not record.
            case unknownType(String)
            /// A known type with a bad shape; the message names the problem.
            case invalid(String)
        }

        /// The `Id` exactly as sent, echoed in the response.
        public var id: String
        /// The verdict.
        public var outcome: Outcome
    }

    /// A body that cannot be read as an AddActivities request.
    public struct FormatError: Error, Sendable, Hashable, CustomStringConvertible {
        /// What is wrong.
        public var description: String
    }

    /// The longest `ContentId` and `NavigationId`, in characters (common_content_data.rst).
    public static let maximumIdentifierLength = 1024

    /// The activities, in request order.
    public var entries: [Entry]

    /// Reads a request body; throws ``FormatError`` when it is not an AddActivities request at all.
    public init(json data: Data) throws {
        guard let value = try? JSONDecoder().decode(ActivityJSON.self, from: data), case .object(let object) = value else {
            throw FormatError(description: "the body is not a JSON object")
        }
        guard case .array(let activities)? = object["Activities"] else {
            throw FormatError(description: "the body has no Activities array")
        }
        entries = try activities.enumerated().map { index, element in
            guard case .object(let activity) = element else { throw FormatError(description: "Activities[\(index)] is not an object") }
            guard case .string(let id)? = activity["Id"] else { throw FormatError(description: "Activities[\(index)] has no string Id") }
            guard case .string(let type)? = activity["Type"] else { throw FormatError(description: "Activities[\(index)] has no string Type") }
            guard let kind = WOPIActivity.Kind(rawValue: type) else { return Entry(id: id, outcome: .unknownType(type)) }
            do {
                return Entry(id: id, outcome: .accepted(try Self.activity(activity, id: id, kind: kind)))
            } catch let error as FormatError {
                return Entry(id: id, outcome: .invalid(error.description))
            }
        }
    }

    private static func activity(_ object: [String: ActivityJSON], id: String, kind: WOPIActivity.Kind) throws -> WOPIActivity {
        guard UUID(uuidString: id) != nil else { throw FormatError(description: "Id is not a UUID") }
        let timestamp = try string(object, "Timestamp")
        guard case .object(let data)? = object["Data"] else { throw FormatError(description: "Data is missing or not an object") }
        guard let contentID = try string(data, "ContentId") else { throw FormatError(description: "Data.ContentId is missing") }
        guard contentID.count <= maximumIdentifierLength else { throw FormatError(description: "Data.ContentId is longer than 1024 characters") }
        guard let actionName = try string(data, "ContentAction"), let action = WOPIActivity.ContentAction(rawValue: actionName) else {
            throw FormatError(description: "Data.ContentAction must be created, updated or deleted")
        }
        let navigationID = try string(data, "NavigationId")
        if let navigationID, navigationID.count > maximumIdentifierLength {
            throw FormatError(description: "Data.NavigationId is longer than 1024 characters")
        }
        let isComment = kind == .comment
        let commentText = isComment ? try string(data, "CommentText") : nil
        let isReply = isComment ? try bool(data, "IsReply") : nil
        var people: [WOPIActivity.Person] = []
        switch object["People"] {
        case nil, .null?: break
        case .array(let list)?:
            people = try list.enumerated().map { index, element in
                guard case .object(let person) = element else { throw FormatError(description: "People[\(index)] is not an object") }
                return WOPIActivity.Person(
                    name: try string(person, "Name"), email: try string(person, "Email"), id: try string(person, "Id"),
                    provider: try string(person, "Provider"), pictureURL: try string(person, "PictureUrl"),
                    mentioned: try bool(person, "Mentioned") ?? false, inThread: try bool(person, "InThread") ?? false,
                    repliedTo: try bool(person, "RepliedTo") ?? false)
            }
        default: throw FormatError(description: "People is not an array")
        }
        return WOPIActivity(id: id, kind: kind, timestamp: timestamp, contentID: contentID, contentAction: action,
                            navigationID: navigationID, commentText: commentText, isReply: isReply, people: people)
    }

    /// A member that may be absent or null but otherwise must be a string.
    private static func string(_ object: [String: ActivityJSON], _ key: String) throws -> String? {
        switch object[key] {
        case nil, .null?: return nil
        case .string(let value)?: return value
        default: throw FormatError(description: "\(key) is not a string")
        }
    }

    /// A member that may be absent or null but otherwise must be `true` or `false`.
    private static func bool(_ object: [String: ActivityJSON], _ key: String) throws -> Bool? {
        switch object[key] {
        case nil, .null?: return nil
        case .bool(let value)?: return value
        default: throw FormatError(description: "\(key) is not a Boolean")
        }
    }
}

/// A JSON value read strictly: a Boolean is only `true`/`false`, never a number.
private enum ActivityJSON: Decodable {
    case null, bool(Bool), number(Double), string(String), array([ActivityJSON]), object([String: ActivityJSON])

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() { self = .null }
        else if let value = try? container.decode(Bool.self) { self = .bool(value) }
        else if let value = try? container.decode(Double.self) { self = .number(value) }
        else if let value = try? container.decode(String.self) { self = .string(value) }
        else if let value = try? container.decode([ActivityJSON].self) { self = .array(value) }
        else { self = .object(try container.decode([String: ActivityJSON].self)) }
    }
}
