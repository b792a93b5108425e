import Foundation
import Hummingbird
import NIOCore

/// The web page: `/` is `Web/index.html`, and `/web/NAME` its style sheet and JavaScript
/// modules, compiled into the server (`PackageResources`) so that an installed binary needs
/// no files beside it.
///
/// The page is a timeline of the whole library, newest first under month and day headings,
/// laid out from `/api/timeline` and read by position near the screen, with a scrubber
/// (`grid.js`), or an album chosen in the sidebar (`sidebar.js`); photos are selected and acted
/// on many at once (`select.js`), files dropped or chosen (or the device camera's photos,
/// `camera.js`) are uploaded with their progress (`upload.js`), and filters build the fetch's predicate, shown as chips (`search.js`). A
/// viewer walks the whole timeline, showing the quick image at once and the final one when it
/// arrives, and plays Live Photos and movies (`viewer.js`); an edit view's sliders and effects
/// build a recipe, previewed at the view's size and saved at full size (`editor.js`). Image
/// URLs carry the asset's modification date, so an edit shows at once everywhere. One tab of
/// the browser at a time holds the change stream and tells the others (`changes.js`); the
/// account menu says who is signed in, lists their sessions and signs out, changes the password,
/// makes and revokes tokens and switches the theme (`account.js`, `theme.js`, which sets it
/// before the page draws); an admin adds, resets and removes users (`users.js`); the albums and
/// folders show as covers, each moved, renamed or deleted from its menu (`albums.js`); the
/// people found in photos show as faces, named, merged and hidden in place, and the viewer's
/// information outlines each face, said to be someone, nobody or no face (`people.js`,
/// `faces.js`); the places show on a map of clustered photos, with their countries and cities
/// beside it (`places.js`, drawn by Leaflet and its marker cluster, Debian's, loaded with the page);
/// the text read in a photo lies over it to be selected, and is listed to be copied (`livetext.js`);
/// the things found in it are listed, each showing its photos (`things.js`).
struct WebPage: Sendable {
    struct File: Sendable {
        let bytes: [UInt8]
        let contentType: String
        /// A strong validator of the bytes, so that a browser revalidates rather than
        /// downloads again, and never keeps a file of an older server.
        let entityTag: String

        init(_ bytes: [UInt8], _ contentType: String) {
            self.bytes = bytes
            self.contentType = contentType
            // FNV-1a: stable across runs, unlike Hasher, and enough to tell versions apart.
            var hash: UInt64 = 0xcbf2_9ce4_8422_2325
            for byte in bytes { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
            entityTag = "\"" + String(hash, radix: 16) + "\""
        }

        /// The page for whoever has signed in; the sign-in page, by a redirect, for whoever has not
        /// (rather than an empty page).
        func response(to request: Request, signedIn context: LightboxRequestContext) -> Response {
            guard context.caller != nil else { return Response(status: .seeOther, headers: [.location: "/signin"]) }
            return response(to: request)
        }

        func response(to request: Request) -> Response {
            var headers = HTTPFields()
            headers[.contentType] = contentType
            headers[.eTag] = entityTag
            headers[.cacheControl] = "no-cache"
            if request.hasEntityTag(entityTag) {
                return Response(status: .notModified, headers: headers)
            }
            return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: bytes)))
        }
    }

    static let index = File(PackageResources.index_html, "text/html; charset=utf-8")
    /// The sign-in page, `/signin`.
    static let signIn = File(PackageResources.signin_html, "text/html; charset=utf-8")
    /// A shared album's page, `/s/KEY` and `/shared/ID`.
    static let shared = File(PackageResources.shared_html, "text/html; charset=utf-8")
    /// What a browser is shown, 404, for an address outside the API that no route takes.
    static let notFound = File(PackageResources.notfound_html, "text/html; charset=utf-8")

    /// The page that says so, for a browser that asked for a page (`Accept: text/html`) at an
    /// address outside `/api/` that nothing lives at; nil for any other request, whose answer is
    /// the API's JSON error.
    static func notFoundPage(for request: Request) -> Response? {
        guard request.method == .get, !request.uri.path.hasPrefix("/api/"),
            request.headers[.accept]?.contains("text/html") == true
        else { return nil }
        var headers = HTTPFields()
        headers[.contentType] = notFound.contentType
        headers[.cacheControl] = "no-cache"
        return Response(status: .notFound, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: notFound.bytes)))
    }

    /// The files under `/web/`, by name.
    static let files: [String: File] = [
        "style.css": File(PackageResources.style_css, "text/css; charset=utf-8"),
        "api.js": File(PackageResources.api_js, "text/javascript; charset=utf-8"),
        "grid.js": File(PackageResources.grid_js, "text/javascript; charset=utf-8"),
        "viewer.js": File(PackageResources.viewer_js, "text/javascript; charset=utf-8"),
        "editor.js": File(PackageResources.editor_js, "text/javascript; charset=utf-8"),
        "sidebar.js": File(PackageResources.sidebar_js, "text/javascript; charset=utf-8"),
        "select.js": File(PackageResources.select_js, "text/javascript; charset=utf-8"),
        "upload.js": File(PackageResources.upload_js, "text/javascript; charset=utf-8"),
        "search.js": File(PackageResources.search_js, "text/javascript; charset=utf-8"),
        "camera.js": File(PackageResources.camera_js, "text/javascript; charset=utf-8"),
        "changes.js": File(PackageResources.changes_js, "text/javascript; charset=utf-8"),
        "account.js": File(PackageResources.account_js, "text/javascript; charset=utf-8"),
        "sharing.js": File(PackageResources.sharing_js, "text/javascript; charset=utf-8"),
        "toast.js": File(PackageResources.toast_js, "text/javascript; charset=utf-8"),
        "trash.js": File(PackageResources.trash_js, "text/javascript; charset=utf-8"),
        "main.js": File(PackageResources.main_js, "text/javascript; charset=utf-8"),
        "signin.js": File(PackageResources.signin_js, "text/javascript; charset=utf-8"),
        "shared.js": File(PackageResources.shared_js, "text/javascript; charset=utf-8"),
        "theme.js": File(PackageResources.theme_js, "text/javascript; charset=utf-8"),
        "users.js": File(PackageResources.users_js, "text/javascript; charset=utf-8"),
        "albums.js": File(PackageResources.albums_js, "text/javascript; charset=utf-8"),
        "faces.js": File(PackageResources.faces_js, "text/javascript; charset=utf-8"),
        "people.js": File(PackageResources.people_js, "text/javascript; charset=utf-8"),
        "places.js": File(PackageResources.places_js, "text/javascript; charset=utf-8"),
        "livetext.js": File(PackageResources.livetext_js, "text/javascript; charset=utf-8"),
        "things.js": File(PackageResources.things_js, "text/javascript; charset=utf-8"),
        "leaflet.js": File(PackageResources.leaflet_js, "text/javascript; charset=utf-8"),
        "leaflet.css": File(PackageResources.leaflet_css, "text/css; charset=utf-8"),
        "markercluster.js": File(PackageResources.markercluster_js, "text/javascript; charset=utf-8"),
        "markercluster.css": File(PackageResources.markercluster_css, "text/css; charset=utf-8"),
        "icon.svg": File(PackageResources.icon_svg, "image/svg+xml"),
    ]

    static let pageOperation = APIOperation(
        "The web page; the sign-in page for whoever has not signed in.",
        responses: [
            .init(status: 200, description: "The page.", content: .html), .empty(303, "Sign in first."),
        ])

    @Sendable
    func page(_ request: Request, _ context: LightboxRequestContext) async throws -> Response {
        Self.index.response(to: request, signedIn: context)
    }

    static let fileOperation = APIOperation(
        "The page's style sheet and JavaScript modules.",
        responses: [
            .media(200, "The file.", ["text/css", "text/javascript", "image/svg+xml"]),
            .empty(304, "The client has it."),
        ])

    @Sendable
    func file(_ request: Request, _ context: LightboxRequestContext) async throws -> Response {
        guard let name = context.parameters.get("name"), let file = Self.files[name] else {
            throw HTTPError(.notFound, message: "no such file of the web page")
        }
        return file.response(to: request)
    }

    // A browser asks for it on a page that names no icon (an API answer opened in a tab),
    // and counted its 404 as an error of the page.
    static let iconOperation = APIOperation(
        "The page's icon, where browsers look for it by default.",
        responses: [.media(200, "The icon.", ["image/svg+xml"]), .empty(304, "The client has it.")])

    @Sendable
    func icon(_ request: Request, _ _: LightboxRequestContext) async throws -> Response {
        Self.icon.response(to: request)
    }

    static let icon = files["icon.svg"]!
}
