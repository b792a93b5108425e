/// The ordered, duplicate-free members of an album or a folder, edited as change requests
/// say. Every index is checked; a bad one throws `invalidRequest` naming the container.
package struct OrderedMembers<Element: Hashable> {
    package var elements: [Element]
    /// "album ID" or "folder ID", for messages.
    package let owner: String

    /// Appends, in order, the elements not already there.
    package mutating func add(_ new: [Element]) {
        for element in new where !elements.contains(element) { elements.append(element) }
    }

    /// Inserts elements at indexes of the result, in increasing index order.
    package mutating func insert(_ new: [Element], at indexes: [Int]) throws {
        guard new.count == indexes.count else {
            throw Self.invalid("insert into \(owner): \(new.count) members but \(indexes.count) indexes")
        }
        for (index, element) in zip(indexes, new).sorted(by: { $0.0 < $1.0 }) {
            guard index >= 0, index <= elements.count else {
                throw Self.invalid("insert into \(owner) at index \(index), past its end (\(elements.count))")
            }
            guard !elements.contains(element) else { throw Self.invalid("a member is already in \(owner)") }
            elements.insert(element, at: index)
        }
    }

    /// Removes these elements wherever they are.
    package mutating func remove(_ old: Set<Element>) {
        elements.removeAll { old.contains($0) }
    }

    /// Removes the elements at these indexes.
    package mutating func remove(at indexes: [Int]) throws {
        try check(indexes)
        for index in Set(indexes).sorted(by: >) { elements.remove(at: index) }
    }

    /// Replaces the elements at these indexes, one for one.
    package mutating func replace(at indexes: [Int], with new: [Element]) throws {
        guard new.count == indexes.count else {
            throw Self.invalid("replace in \(owner): \(new.count) members but \(indexes.count) indexes")
        }
        try check(indexes)
        for (index, element) in zip(indexes, new) {
            guard elements[index] == element || !elements.contains(element) else {
                throw Self.invalid("a member is already in \(owner)")
            }
            elements[index] = element
        }
    }

    /// Moves the elements at `indexes`, in order, so that the first lands at `destination`
    /// (an index once they are taken out).
    package mutating func move(at indexes: [Int], to destination: Int) throws {
        try check(indexes)
        let sorted = Set(indexes).sorted()
        let moving = sorted.map { elements[$0] }
        for index in sorted.reversed() { elements.remove(at: index) }
        guard destination >= 0, destination <= elements.count else {
            throw Self.invalid("move in \(owner) to index \(destination), past its end (\(elements.count))")
        }
        elements.insert(contentsOf: moving, at: destination)
    }

    private func check(_ indexes: [Int]) throws {
        for index in indexes where index < 0 || index >= elements.count {
            throw Self.invalid("index \(index) is past the end of \(owner) (\(elements.count) members)")
        }
    }

    package static func invalid(_ message: String) -> LibraryError {
        .refusedChange(message)
    }
}

extension LibraryError {
    /// A change request the library refuses: the whole block is rolled back, and says so.
    package static func refusedChange(_ message: String) -> LibraryError {
        LibraryError(.invalidRequest, message + "; nothing was changed")
    }
}
