import Foundation
import Lightbox

/// The schemas of the OpenAPI document's components: the JSON each answer holds, as the
/// model's encoders write it.
enum Schemas {
    static let all: [String: JSONValue] = [
        "Error": Schema.object(
            [
                "error": Schema.object(
                    ["code": Schema.string, "message": Schema.string], required: ["code", "message"])
            ],
            required: ["error"]),
        "Location": Schema.object(
            [
                "latitude": Schema.number, "longitude": Schema.number, "altitude": Schema.number,
                "timestamp": Schema.date,
            ], required: ["latitude", "longitude"]),
        "AssetResource": Schema.object(
            [
                "type": Schema.integer, "originalFilename": Schema.string, "uniformTypeIdentifier": Schema.string,
                "fileSize": Schema.integer, "pixelWidth": Schema.integer, "pixelHeight": Schema.integer,
                "sha256": Schema.sha256,
            ],
            required: [
                "type", "originalFilename", "uniformTypeIdentifier", "fileSize", "pixelWidth", "pixelHeight", "sha256",
            ]),
        "Asset": Schema.object(
            [
                "localIdentifier": Schema.string, "mediaType": Schema.integer, "mediaSubtypes": Schema.integer,
                "pixelWidth": Schema.integer, "pixelHeight": Schema.integer, "creationDate": Schema.date,
                "modificationDate": Schema.date, "addedDate": Schema.date, "duration": Schema.number,
                "isFavorite": Schema.boolean, "isHidden": Schema.boolean, "playbackStyle": Schema.integer,
                "sourceType": Schema.integer, "location": Schema.ref("Location"), "rating": Schema.integer,
                "burstIdentifier": Schema.string, "burstSelectionTypes": Schema.integer,
                "representsBurst": Schema.boolean, "hasAdjustments": Schema.boolean,
                "adjustmentFormatIdentifier": Schema.string, "resources": Schema.array(Schema.ref("AssetResource")),
                "trashedDate": Schema.date, "cameraMake": Schema.string, "cameraModel": Schema.string,
                "orientation": Schema.integer(1...8).merging([
                    "description":
                        "The EXIF orientation to show the current image's bytes in (1 for an edit and a movie)."
                ]),
                "lensModel": Schema.string,
            ],
            required: [
                "localIdentifier", "mediaType", "mediaSubtypes", "pixelWidth", "pixelHeight", "creationDate",
                "modificationDate", "addedDate", "duration", "isFavorite", "isHidden", "playbackStyle", "sourceType",
                "burstSelectionTypes", "representsBurst", "hasAdjustments", "resources", "orientation",
            ]),
        "AssetPage": Schema.object(
            [
                "assets": Schema.array(Schema.ref("Asset")), "next": Schema.string, "offset": Schema.integer,
                "count": Schema.integer,
            ],
            required: ["assets", "count"]),
        "CameraDetails": Schema.object(
            [
                "make": Schema.string, "model": Schema.string, "lensMake": Schema.string, "lensModel": Schema.string,
                "software": Schema.string, "exposureTime": Schema.number, "fNumber": Schema.number,
                "iso": Schema.integer, "focalLength": Schema.number, "focalLengthIn35mmFormat": Schema.integer,
            ], required: []),
        "Timeline": Schema.object(
            [
                "count": Schema.integer,
                "days": Schema.array(
                    Schema.object(
                        [
                            "day": Schema.string, "count": Schema.integer,
                            "aspects": Schema.array(Schema.integer(1...10_000)).merging([
                                "description": """
                                Each asset's width over its height as shown, in hundredths (133: a 4:3 \
                                landscape; 100 where its size is unknown), in order; only when asked for \
                                (`aspects=true`).
                                """
                            ]),
                        ], required: ["day", "count"])),
            ],
            required: ["count", "days"]),
        "Cameras": Schema.object(
            [
                "cameras": Schema.array(
                    Schema.object(
                        [
                            "make": Schema.string, "model": Schema.string, "lensModel": Schema.string,
                            "count": Schema.integer,
                        ], required: ["count"]))
            ], required: ["cameras"]),
        "ChangedAssets": Schema.object(
            ["changeToken": Schema.integer, "assets": Schema.array(Schema.ref("Asset"))],
            required: ["changeToken", "assets"]),
        "DeletedAssets": Schema.object(
            ["changeToken": Schema.integer, "deleted": Schema.array(Schema.string), "permanently": Schema.boolean],
            required: ["changeToken", "deleted", "permanently"]),
        "Collection": Schema.object(
            [
                "localIdentifier": Schema.string, "assetCollectionType": Schema.integer,
                "assetCollectionSubtype": Schema.integer, "localizedTitle": Schema.string,
                "estimatedAssetCount": Schema.integer, "startDate": Schema.date, "endDate": Schema.date,
                "keyAssetIdentifier": Schema.string, "isHidden": Schema.boolean, "faceCount": Schema.integer,
                "keyFace": Schema.ref("Face"),
            ],
            required: ["localIdentifier", "assetCollectionType", "assetCollectionSubtype", "estimatedAssetCount"]),
        "Face": Schema.object(
            [
                "localIdentifier": Schema.string, "assetLocalIdentifier": Schema.string,
                "x": Schema.number, "y": Schema.number, "width": Schema.number, "height": Schema.number,
                "quality": Schema.number, "personLocalIdentifier": Schema.string, "personName": Schema.string,
                "membership": Schema.integer(0...4).merging([
                    "description":
                        "0 waiting for a person, 1 grouped, 2 put there by someone, 3 nobody's by someone's choice."
                ]),
                "isKeyFace": Schema.boolean, "model": Schema.string,
            ],
            required: [
                "localIdentifier", "assetLocalIdentifier", "x", "y", "width", "height", "quality", "membership",
                "isKeyFace", "model",
            ]),
        "Faces": Schema.object(["faces": Schema.array(Schema.ref("Face"))], required: ["faces"]),
        "Person": Schema.object(
            [
                "localIdentifier": Schema.string, "assetCollectionType": Schema.integer,
                "assetCollectionSubtype": Schema.integer, "localizedTitle": Schema.string,
                "estimatedAssetCount": Schema.integer, "startDate": Schema.date, "endDate": Schema.date,
                "isHidden": Schema.boolean, "faceCount": Schema.integer, "keyFace": Schema.ref("Face"),
            ],
            required: [
                "localIdentifier", "assetCollectionType", "assetCollectionSubtype", "estimatedAssetCount", "isHidden",
                "faceCount",
            ]),
        "PeoplePage": Schema.object(
            ["people": Schema.array(Schema.ref("Person")), "next": Schema.string, "facesEnabled": Schema.boolean],
            required: ["people", "facesEnabled"]),
        "Analysis": Schema.object(
            [
                "faces": Schema.boolean, "places": Schema.boolean, "text": Schema.boolean, "things": Schema.boolean,
                "clip": Schema.boolean,
            ],
            required: ["faces", "places", "text", "things", "clip"]),
        "AnalysisChange": Schema.object(
            [
                "faces": Schema.boolean, "places": Schema.boolean, "text": Schema.boolean, "things": Schema.boolean,
                "clip": Schema.boolean,
            ]),
        "SearchAnswer": Schema.object(
            [
                "understood": Schema.array(
                    Schema.object(
                        [
                            "kind": Schema.string, "label": Schema.string, "text": Schema.string,
                            "predicate": Schema.string,
                        ], required: ["kind", "label", "text", "predicate"])),
                "predicate": Schema.string, "assets": Schema.array(Schema.ref("Asset")),
                "foundByContent": Schema.array(Schema.string), "covers": Schema.array(Schema.string),
                "notes": Schema.array(Schema.string),
            ], required: ["understood", "assets", "foundByContent", "covers", "notes"]),
        "AssetThings": Schema.object(
            [
                "read": Schema.boolean, "model": Schema.string, "analysedDate": Schema.date,
                "things": Schema.array(
                    Schema.object(
                        [
                            "label": Schema.string, "confidence": Schema.number, "synset": Schema.string,
                            "terms": Schema.array(Schema.string), "x": Schema.number, "y": Schema.number,
                            "width": Schema.number, "height": Schema.number,
                        ], required: ["label", "confidence", "terms"])),
            ], required: ["read", "things"]),
        "AssetText": Schema.object(
            [
                "read": Schema.boolean, "model": Schema.string, "analysedDate": Schema.date,
                "lines": Schema.array(
                    Schema.object(
                        [
                            "text": Schema.string, "x": Schema.number, "y": Schema.number, "width": Schema.number,
                            "height": Schema.number, "confidence": Schema.number,
                        ], required: ["text", "x", "y", "width", "height", "confidence"])),
            ], required: ["read", "lines"]),
        "AssetPlace": Schema.object([
            "name": Schema.string, "city": Schema.string, "region": Schema.string, "country": Schema.string,
            "countryCode": Schema.string,
        ]),
        "AssetPlaceAnswer": Schema.object(["place": Schema.ref("AssetPlace")]),
        "PlaceList": Schema.object(
            [
                "countries": Schema.array(
                    Schema.object(
                        [
                            "name": Schema.string, "countryCode": Schema.string, "count": Schema.integer,
                            "cities": Schema.array(
                                Schema.object(
                                    ["name": Schema.string, "region": Schema.string, "count": Schema.integer],
                                    required: ["count"])),
                        ], required: ["count", "cities"]))
            ], required: ["countries"]),
        "MapCells": Schema.object(
            [
                "zoom": Schema.integer, "count": Schema.integer,
                "cells": Schema.array(
                    Schema.object(
                        [
                            "latitude": Schema.number, "longitude": Schema.number, "count": Schema.integer,
                            "south": Schema.number, "west": Schema.number, "north": Schema.number,
                            "east": Schema.number, "asset": Schema.string,
                        ],
                        required: ["latitude", "longitude", "count", "south", "west", "north", "east", "asset"])),
            ], required: ["zoom", "cells", "count"]),
        "MapTiles": Schema.object(
            ["url": Schema.string, "attribution": Schema.string, "maxZoom": Schema.integer],
            required: ["attribution", "maxZoom"]),
        "CollectionPage": Schema.object(
            ["collections": Schema.array(Schema.ref("Collection")), "next": Schema.string], required: ["collections"]),
        "List": Schema.object(
            [
                "localIdentifier": Schema.string, "collectionListType": Schema.integer,
                "collectionListSubtype": Schema.integer, "localizedTitle": Schema.string, "count": Schema.integer,
            ], required: ["localIdentifier", "collectionListType", "collectionListSubtype", "count"]),
        "ListMember": Schema.object(
            ["kind": Schema.string(["album", "folder", "moment"]), "localIdentifier": Schema.string],
            required: ["kind", "localIdentifier"]),
        "ObjectChanges": Schema.object(
            [
                "objectType": Schema.string(["asset", "assetCollection", "collectionList"]),
                "insertedLocalIdentifiers": Schema.array(Schema.string),
                "updatedLocalIdentifiers": Schema.array(Schema.string),
                "deletedLocalIdentifiers": Schema.array(Schema.string),
                "trashedLocalIdentifiers": Schema.array(Schema.string),
                "restoredLocalIdentifiers": Schema.array(Schema.string),
            ],
            required: ["objectType", "insertedLocalIdentifiers", "updatedLocalIdentifiers", "deletedLocalIdentifiers"]),
        "PersistentChange": Schema.object(
            [
                "token": Schema.integer, "date": Schema.date, "author": Schema.string,
                "asset": Schema.ref("ObjectChanges"), "assetCollection": Schema.ref("ObjectChanges"),
                "collectionList": Schema.ref("ObjectChanges"),
            ], required: ["token", "date"]),
        "ChangesPage": Schema.object(
            [
                "currentToken": Schema.integer, "changes": Schema.array(Schema.ref("PersistentChange")),
                "next": Schema.integer,
            ], required: ["currentToken", "changes"]),
        "EditState": Schema.object(
            [
                "hasAdjustments": Schema.boolean, "adjustmentFormatIdentifier": Schema.string,
                "formatVersion": Schema.string, "filters": Schema.array(Schema.string), "canContinue": Schema.boolean,
            ], required: ["hasAdjustments", "filters", "canContinue"]),
        "Editor": Schema.object(
            [
                "identifier": Schema.string, "name": Schema.string, "version": Schema.string, "summary": Schema.string,
                "mediaTypes": Schema.array(Schema.string(["image", "video"])),
                "adjustmentFormats": Schema.array(Schema.string), "memoryLimitMiB": Schema.integer,
                "timeLimitSeconds": Schema.number, "scope": Schema.string(["system", "user", "library"]),
                "settings": Schema.array(
                    Schema.object(
                        [
                            "name": Schema.string, "label": Schema.string, "minimum": Schema.number,
                            "maximum": Schema.number, "default": Schema.number, "step": Schema.number,
                        ], required: ["name", "label", "minimum", "maximum", "default"])),
                "mayContinue": Schema.boolean,
            ],
            required: [
                "identifier", "name", "version", "summary", "mediaTypes", "adjustmentFormats", "memoryLimitMiB",
                "timeLimitSeconds", "scope", "settings",
            ]),
        "Job": Schema.object(
            [
                "id": Schema.integer, "kind": Schema.string(JobKind.allCases.map(\.rawValue)),
                "subject": Schema.string, "enqueuedDate": Schema.date,
            ], required: ["id", "kind", "subject", "enqueuedDate"]),
        "JobQueue": Schema.object(
            [
                "waiting": Schema.map(Schema.integer),
                "running": Schema.array(
                    Schema.object(
                        [
                            "job": Schema.ref("Job"),
                            "run": Schema.object(
                                [
                                    "worker": Schema.string, "startedDate": Schema.date, "done": Schema.integer,
                                    "total": Schema.integer,
                                ], required: ["worker", "startedDate", "done", "total"]),
                        ], required: ["job", "run"])),
                "failed": Schema.array(
                    Schema.object(
                        ["job": Schema.ref("Job"), "error": Schema.string, "runs": Schema.integer],
                        required: ["job", "error", "runs"])),
            ], required: ["waiting", "running", "failed"]),
        "JobsRetried": Schema.object(["retried": Schema.integer], required: ["retried"]),
        "TrashPage": Schema.object(
            [
                "assets": Schema.array(Schema.ref("Asset")), "next": Schema.string, "retentionDays": Schema.number,
            ], required: ["assets", "retentionDays"]),
        "User": Schema.object(
            [
                "id": Schema.string, "name": Schema.string, "role": Schema.string(["admin", "member"]),
                "creationDate": Schema.date,
            ], required: ["id", "name", "role", "creationDate"]),
        "Authorization": Schema.object(
            [
                "status": Schema.string(["notDetermined", "authorized", "limited"]),
                "accessLevel": Schema.string(["readWrite", "read"]), "user": Schema.ref("User"),
                "credential": Schema.string(["session", "token", "local", "link"]), "expirationDate": Schema.date,
                "limitedTo": Schema.array(Schema.string),
                "sharedAlbum": Schema.object(
                    [
                        "share": Schema.string, "album": Schema.string, "owner": Schema.string,
                        "permission": Schema.string(["view", "contribute"]),
                    ], required: ["share", "album", "owner", "permission"]),
            ], required: ["status"]),
        "Share": Schema.object(
            [
                "id": Schema.string, "album": Schema.string, "permission": Schema.string(["view", "contribute"]),
                "creationDate": Schema.date, "user": Schema.string, "link": Schema.string, "path": Schema.string,
                "hasPassword": Schema.boolean, "expirationDate": Schema.date,
            ], required: ["id", "album", "permission", "creationDate"]),
        "SharedAlbum": Schema.object(
            [
                "id": Schema.string, "owner": Schema.string, "permission": Schema.string(["view", "contribute"]),
                "creationDate": Schema.date, "collection": Schema.ref("Collection"),
            ], required: ["id", "owner", "permission", "creationDate"]),
        "Session": Schema.object(
            [
                "id": Schema.string, "creationDate": Schema.date, "lastSeenDate": Schema.date,
                "expirationDate": Schema.date, "userAgent": Schema.string, "address": Schema.string,
                "current": Schema.boolean,
            ],
            required: ["id", "creationDate", "lastSeenDate", "expirationDate", "userAgent", "address", "current"]),
        "Token": Schema.object(
            [
                "id": Schema.string, "name": Schema.string, "scope": Schema.string(["read", "write"]),
                "limitedTo": Schema.array(Schema.string), "creationDate": Schema.date, "expirationDate": Schema.date,
                "lastUsedDate": Schema.date, "secret": Schema.string,
            ], required: ["id", "name", "scope", "creationDate"]),
        "Upload": Schema.object(
            [
                "id": Schema.string, "filename": Schema.string, "size": Schema.integer, "offset": Schema.integer,
                "writing": Schema.boolean,
            ], required: ["id", "filename", "size", "offset", "writing"]),
        "UploadResult": Schema.object(
            [
                "id": Schema.string, "outcome": Schema.string(["imported", "paired", "duplicate"]),
                "asset": Schema.ref("Asset"), "changeToken": Schema.integer,
            ], required: ["outcome", "asset", "changeToken"]),
        "CaptureDevice": Schema.object(
            [
                "uniqueID": Schema.string, "localizedName": Schema.string, "manufacturer": Schema.string,
                "kind": Schema.string(["camera", "microphone", "synthetic", "file"]),
                "formats": Schema.array(
                    Schema.object(
                        [
                            "pixelFormat": Schema.string, "width": Schema.integer, "height": Schema.integer,
                            "frameRate": Schema.number,
                        ], required: ["pixelFormat", "width", "height", "frameRate"])),
                "hasAudio": Schema.boolean,
            ], required: ["uniqueID", "localizedName", "manufacturer", "kind", "formats", "hasAudio"]),
        "Capture": Schema.object(
            [
                "assets": Schema.array(Schema.ref("Asset")),
                "events": Schema.array(
                    Schema.object(
                        ["event": Schema.string, "seconds": Schema.number, "error": Schema.string],
                        required: ["event", "seconds"])),
            ], required: ["assets", "events"]),
    ]
}
