import Foundation
import LightboxStore

/// People's change requests, in a `performChanges` block like albums' (Lightbox's own: PhotoKit
/// keeps people private). What someone chooses is never undone by a later grouping: a face put
/// in a person stays there, and a face taken from one never joins them again.
///
/// ```swift
/// try await library.performChanges { changes in
///     changes.changeRequest(forPerson: stranger).name = "Anna"
///     changes.mergePeople([annaAgain], into: stranger)
///     changes.assignFaces([notHer], to: nil)            // "not Anna"
/// }
/// ```
extension ChangeRequests {
    /// A request to make a person, named or not, of these faces (taken from whoever had them).
    public func creationRequestForPerson(named name: String?, faces: [Face] = []) -> PersonChangeRequest {
        let localIdentifier = UUID().uuidString
        operations.append(.createPerson(localIdentifier, name: name, faces: faces.map(\.localIdentifier)))
        return PersonChangeRequest(localIdentifier: localIdentifier, requests: self, isCreation: true)
    }

    /// A request to change a person: their name, whether they are hidden, their key face.
    public func changeRequest(forPerson person: AssetCollection) -> PersonChangeRequest {
        changeRequest(forPersonWithLocalIdentifier: person.localIdentifier)
    }

    /// A request to change the person with this identifier (a placeholder's, too).
    public func changeRequest(forPersonWithLocalIdentifier localIdentifier: String) -> PersonChangeRequest {
        PersonChangeRequest(localIdentifier: localIdentifier, requests: self, isCreation: false)
    }

    /// The people's faces become `person`'s, and they go; `person` keeps their name when it
    /// has none.
    public func mergePeople(_ people: [AssetCollection], into person: AssetCollection) {
        operations.append(.mergePeople(people.map(\.localIdentifier), into: person.localIdentifier))
    }

    /// The faces are `person`'s ("this is Anna"), or, with nil, nobody's known ("not Anna").
    public func assignFaces(_ faces: [Face], to person: AssetCollection?) {
        operations.append(.assignFaces(faces.map(\.localIdentifier), person: person?.localIdentifier))
    }

    /// The faces are `person`'s, by identifiers (a placeholder's, too; nil: nobody's).
    public func assignFaces(withLocalIdentifiers faces: [String], toPersonWithLocalIdentifier person: String?) {
        operations.append(.assignFaces(faces, person: person))
    }

    /// These were no faces at all: they leave their person and are never shown or grouped.
    public func rejectFaces(_ faces: [Face]) {
        operations.append(.rejectFaces(faces.map(\.localIdentifier)))
    }

    /// As ``rejectFaces(_:)``, by identifiers.
    public func rejectFaces(withLocalIdentifiers faces: [String]) {
        operations.append(.rejectFaces(faces))
    }
}

/// Changes to one person.
public final class PersonChangeRequest {
    /// The person this request changes, or creates.
    public let localIdentifier: String
    private unowned let requests: ChangeRequests
    private let isCreation: Bool

    init(localIdentifier: String, requests: ChangeRequests, isCreation: Bool) {
        self.localIdentifier = localIdentifier
        self.requests = requests
        self.isCreation = isCreation
    }

    /// The placeholder of the person this request creates (nil for a change request).
    public var placeholderForCreatedPerson: ObjectPlaceholder? {
        isCreation ? ObjectPlaceholder(localIdentifier: localIdentifier) : nil
    }

    /// Names the person; nil or blank takes their name away. A name another person has, case
    /// aside, is refused when the block is performed: merge the two instead.
    public var name: String? {
        get { nil }
        set { requests.operations.append(.renamePerson(localIdentifier, name: newValue)) }
    }

    /// Hides the person from the People list (their photos stay where they are), or shows them.
    public var isHidden: Bool {
        get { false }
        set { requests.operations.append(.hidePerson(localIdentifier, newValue)) }
    }

    /// The face on the person's cover: one of theirs.
    public func setKeyFace(_ face: Face) {
        setKeyFace(withLocalIdentifier: face.localIdentifier)
    }

    /// The face on the person's cover, by its identifier.
    public func setKeyFace(withLocalIdentifier face: String) {
        requests.operations.append(.setKeyFace(person: localIdentifier, face: face))
    }

    /// Puts these faces in the person, by someone's choice.
    public func addFaces(_ faces: [Face]) {
        requests.operations.append(.assignFaces(faces.map(\.localIdentifier), person: localIdentifier))
    }
}
