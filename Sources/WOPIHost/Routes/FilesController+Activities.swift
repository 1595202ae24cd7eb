import Foundation
import Hummingbird
import WOPICore

/// AddActivities (docs/rest/src/files/AddActivities.rst): comments and mentions are recorded
/// with the users they mention; other types are answered `UnknownType`; a body that is not an
/// AddActivities request is refused with 400 and records nothing.
extension FilesController {
    /// The largest AddActivities body the host reads.
    static var maximumActivitiesBody: Int { 1024 * 1024 }

    /// `POST /wopi/files/<id>/activities`: AddActivities at the path the docs give.
    @Sendable func addActivities(_ request: Request, context: Context) async throws -> Response {
        let access = try await resolve(request, context)
        guard try request.headers.single(.wopiOverride) == "ADD_ACTIVITIES" else {
            throw WOPIError.badRequest("AddActivities needs X-WOPI-Override: ADD_ACTIVITIES")
        }
        try permit("AddActivities", access)
        return try await addActivities(access.file, access.user, request)
    }

    /// Reads the batch, records what it can and answers one ActivityResponse per activity, in request order.
    func addActivities(_ file: FileRecord, _ user: UserRecord, _ request: Request) async throws -> Response {
        var request = request
        let buffer: ByteBuffer
        do {
            buffer = try await request.collectBody(upTo: Self.maximumActivitiesBody)
        } catch let error as HTTPError where error.status == .contentTooLarge {
            throw WOPIError(.contentTooLarge, "AddActivities body exceeds \(Self.maximumActivitiesBody) bytes")
        }
        let batch: ActivityBatch
        do {
            batch = try ActivityBatch(json: Data(buffer.readableBytesView))
        } catch let error as ActivityBatch.FormatError {
            throw WOPIError.badRequest("AddActivities: \(error.description)")
        }
        let now = backend.configuration.now()
        var responses: [ActivityResponse] = []
        for entry in batch.entries {
            switch entry.outcome {
            case .unknownType(let type):
                responses.append(ActivityResponse(id: entry.id, status: ActivityBatch.Status.unknownType.rawValue,
                                                  message: "activity type '\(type.prefix(64))' is not recorded by this host"))
            case .invalid(let problem):
                responses.append(ActivityResponse(id: entry.id, status: ActivityBatch.Status.permanentFailure.rawValue, message: problem))
            case .accepted(let activity):
                let record = ActivityRecord(fileID: file.id, activity: activity, actorID: user.id, receivedAt: now,
                                            mentionedUserIDs: try await mentionedUsers(activity, in: file))
                do {
                    _ = try await backend.store.recordActivity(record)
                    responses.append(ActivityResponse(id: entry.id, status: ActivityBatch.Status.success.rawValue, message: nil))
                } catch WOPIStoreError.notFound {
                    // The file or a mentioned user went away meanwhile: retrying cannot help.
                    responses.append(ActivityResponse(id: entry.id, status: ActivityBatch.Status.permanentFailure.rawValue,
                                                      message: "the file or a mentioned user no longer exists"))
                }
            }
        }
        return try WOPIJSON.response(ActivitiesResponse(activityResponses: responses))
    }

    /// The host's users among the people marked `Mentioned` who may open the file: a WOPI person whose `Id`
    /// is a user id here, owning the file or sharing it. Anyone else (another provider, an unknown id, a
    /// name only, a user the file is not shared with) is kept in the activity but mentions nobody, so a
    /// comment never reaches someone who could not read the document.
    private func mentionedUsers(_ activity: WOPIActivity, in file: FileRecord) async throws -> [ResourceID] {
        var users: [ResourceID] = []
        for person in activity.mentionedPeople where person.isWOPIUser {
            if let id = person.id.flatMap(ResourceID.init), try await backend.store.fileAccess(file.id, by: id)?.role != nil { users.append(id) }
        }
        return users
    }
}

/// AddActivities' response body.
private struct ActivitiesResponse: Encodable {
    var activityResponses: [ActivityResponse]
}

/// One ActivityResponse object: `Id`, `Status`, and `Message` when there is something to log.
private struct ActivityResponse: Encodable {
    var id: String
    var status: Int
    var message: String?
}
