import Foundation
import LightboxStore

extension PhotoLibrary {
    /// The most faces one photo's analysis may record: a crowd's photo has fewer that can be
    /// told apart at a preview's size.
    public static let maximumFacesPerAsset = 100

    /// The faces found in an asset, the surest first; not those marked as no face. None for an
    /// asset no analysis has seen (``faceModel(of:)`` says which did).
    public func faces(in asset: Asset) throws -> [Face] {
        try store.read { try $0.faces(inAsset: asset.localIdentifier) }.filter { $0.membership != .notAFace }
    }

    /// The faces found in an asset, the surest first; not those marked as no face.
    public func faces(in asset: Asset) async throws -> [Face] {
        let id = asset.localIdentifier
        return try await store.read { try $0.faces(inAsset: id) }.filter { $0.membership != .notAFace }
    }

    /// The model that last analysed an asset's faces; nil when none has.
    public func faceModel(of asset: Asset) async throws -> String? {
        let id = asset.localIdentifier
        return try await store.read { try $0.faceModel(ofAsset: id) }
    }

    /// How many photos (not in Recently Deleted) `model` has yet to analyse: none has, or
    /// another model did.
    public func faceAnalysisBacklogCount(model: String) async throws -> Int {
        try await store.read { try $0.faceAnalysisBacklogCount(model: model) }
    }

    /// The photos `model` could not analyse, each with why, the last tried first: they wait
    /// for another model, not for this one again.
    public func faceAnalysisFailures(model: String, limit: Int = 100) async throws -> [AnalysisFailure] {
        try await store.read { try $0.faceAnalysisFailures(model: model, limit: max(0, min(limit, 10_000))) }
    }

    /// Records the faces `model` found in an asset's displayed image, in place of an earlier
    /// analysis: a face covering an earlier one keeps its identifier and whose it is, so that
    /// naming and "not a face" outlive analysing again. What a model answers is checked first
    /// (``checkedFaces(_:model:)``). Answers the asset's faces (those marked as no face left out);
    /// none for an asset deleted meanwhile.
    @discardableResult
    public func recordFaces(_ found: [FoundFace], in asset: Asset, model: String) async throws -> [Face] {
        let checked = try Self.checkedFaces(found, model: model)
        let id = asset.localIdentifier
        return try await BlockingWork.run { [store] in
            try store.write { try $0.recordFaces(checked, inAsset: id, model: model) }
        }.filter { $0.membership != .notAFace }
    }

    /// What an analysis answered, refused unless every number is one the catalog can keep: a
    /// model named in 1 to 200 characters; at most ``maximumFacesPerAsset`` faces; boxes inside
    /// the image (0 to 1, not empty); qualities from 0 to 1; landmarks as x, y pairs inside the
    /// image, at most 68 points; embeddings of one length from 1 to 1,024 finite numbers.
    public static func checkedFaces(_ found: [FoundFace], model: String) throws -> [FoundFace] {
        func refuse(_ what: String) -> LibraryError {
            LibraryError(.invalidRequest, "the faces model \(model.prefix(200)) answered \(what); nothing was recorded")
        }
        guard (1...200).contains(model.count) else { throw refuse("with a model name of \(model.count) characters") }
        guard found.count <= maximumFacesPerAsset else {
            throw refuse("\(found.count) faces, more than \(maximumFacesPerAsset)")
        }
        let dimensions = found.first?.embedding.count ?? 0
        let unit = 0.0...1.0
        for (index, face) in found.enumerated() {
            let box = [face.x, face.y, face.width, face.height]
            guard box.allSatisfy(unit.contains), face.width > 0, face.height > 0,
                face.x + face.width <= 1.000_001, face.y + face.height <= 1.000_001
            else { throw refuse("face \(index + 1) with a box outside the image") }
            guard unit.contains(face.quality) else { throw refuse("face \(index + 1) with a quality outside 0 to 1") }
            guard face.landmarks.count % 2 == 0, face.landmarks.count <= 136, face.landmarks.allSatisfy(unit.contains)
            else { throw refuse("face \(index + 1) with landmarks outside the image") }
            guard (1...1024).contains(face.embedding.count), face.embedding.count == dimensions,
                face.embedding.allSatisfy({ $0.isFinite && abs($0) < 60_000 })
            else {
                throw refuse(
                    "face \(index + 1) with an embedding of \(face.embedding.count) numbers, not \(dimensions)")
            }
        }
        return found
    }
}
