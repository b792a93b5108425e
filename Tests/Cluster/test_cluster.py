"""Two `lightbox serve` processes and two `lightbox worker` processes on one PostgreSQL catalog
and one S3 bucket, each process with a library folder of its own, as on four machines.

Run by scripts/check-cluster inside scripts/services (which starts PostgreSQL and moto's S3
server and names them in LIGHTBOX_TEST_POSTGRES and LIGHTBOX_TEST_S3). Standard library only.

What it shows, in order (one test: each step stands on the library the steps before made):
- an upload through the first server is pushed to a change stream of the second, and the
  second fetches it;
- the same 50 files uploaded through both servers at once make 50 assets, each file imported
  by exactly one server and a duplicate on the other;
- a worker killed with SIGKILL while it holds a job leaves the job to the other worker, which
  makes the movie's copy that both servers then serve;
- a server killed during an upload, its original in the bucket and its row not committed,
  leaves no asset without its original (`lightbox check` of the whole library passes) and the
  same upload again makes the asset.
"""

import hashlib
import http.client
import json
import os
import queue
import shutil
import signal
import socket
import subprocess
import tempfile
import threading
import time
import unittest
import urllib.error
import urllib.parse
import urllib.request
import uuid
from concurrent.futures import ThreadPoolExecutor

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
# The command the processes run: the debug build the tests build (scripts/bench-cluster sets the
# release build's).
LIGHTBOX = os.path.join(ROOT, ".build/debug/lightbox")
CORPUS = os.path.join(ROOT, ".corpus")
CREDENTIALS = {"AWS_ACCESS_KEY_ID": "lightbox-test", "AWS_SECRET_ACCESS_KEY": "lightbox-test-secret"}


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def sha256(path):
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def corpus_photos(count, work):
    """`count` distinct JPEGs from real cameras and phones, under 3 MB, in a stable order, each
    one Lightbox imports as a visible asset of its own (the corpus keeps damaged files and burst
    frames for other tests): tried in a scratch library first."""
    candidates = []
    for folder in ["forensics/original-files", "sigal", "lomiri", "digikam", "exiv2/data"]:
        for base, _, names in sorted(os.walk(os.path.join(CORPUS, folder))):
            candidates += [os.path.join(base, name) for name in sorted(names)
                           if name.lower().endswith((".jpg", ".jpeg")) and os.path.getsize(os.path.join(base, name)) < 3 << 20]
    candidates = candidates[:count * 3]
    scratch = subprocess.run([LIGHTBOX, "import", "--library", os.path.join(work, "scratch.lightbox"), "--json"] + candidates,
                             capture_output=True, text=True)
    found = []
    for line in scratch.stdout.splitlines():
        result = json.loads(line)
        if result.get("status") == "imported" and "burstIdentifier" not in result.get("asset", {}):
            found.append(result["path"])
    found.sort(key=candidates.index)
    if len(found) < count:
        raise AssertionError(f"the corpus has {len(found)} JPEGs Lightbox imports, not {count}")
    return found[:count]


class Process:
    """A `lightbox` process, its standard error in a file, started until it says `ready`."""

    def __init__(self, name, arguments, work, ready=None, environment=None):
        self.name = name
        self.log_path = os.path.join(work, name + ".log")
        self.log = open(self.log_path, "wb")
        env = dict(os.environ, **CREDENTIALS, **(environment or {}))
        self.process = subprocess.Popen([LIGHTBOX] + arguments, stdout=self.log, stderr=subprocess.STDOUT, env=env)
        if ready:
            self.wait_for(ready)

    def said(self):
        with open(self.log_path, "rb") as f:
            return f.read().decode("utf-8", "replace")

    def wait_for(self, phrase, seconds=120):
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            if phrase in self.said():
                return
            if self.process.poll() is not None:
                raise AssertionError(f"{self.name} ended ({self.process.returncode}) before saying {phrase!r}:\n{self.said()}")
            time.sleep(0.05)
        raise AssertionError(f"{self.name} did not say {phrase!r} in {seconds} s:\n{self.said()}")

    def kill(self):
        self.process.send_signal(signal.SIGKILL)
        self.process.wait()

    def stop(self):
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.kill()
        self.log.close()


class Server(Process):
    def __init__(self, name, folder, database, work, environment=None, options=()):
        self.port = free_port()
        super().__init__(
            name,
            ["serve", "--library", folder, "--database", database, "--port", str(self.port), "--jobs", "0", *options],
            work, ready="Serving", environment=environment)

    def url(self, path):
        return f"http://127.0.0.1:{self.port}{path}"

    def request(self, method, path, body=None, timeout=600):
        headers = {"Content-Type": "application/json" if isinstance(body, (dict, list)) else "application/octet-stream"}
        if isinstance(body, (dict, list)):
            body = json.dumps(body).encode()
        request = urllib.request.Request(self.url(path), data=body, method=method, headers=headers)
        try:
            with urllib.request.urlopen(request, timeout=timeout) as response:
                return response.status, response.read()
        except urllib.error.HTTPError as error:
            return error.code, error.read()

    def json(self, method, path, body=None):
        status, data = self.request(method, path, body)
        if status >= 300:
            raise AssertionError(f"{self.name}: {method} {path}: {status} {data[:500]!r}")
        return json.loads(data)

    def upload(self, path):
        """The file uploaded whole: the answer's status and JSON."""
        query = urllib.parse.urlencode({"filename": os.path.basename(path), "sha256": sha256(path)})
        with open(path, "rb") as f:
            status, data = self.request("POST", "/api/uploads/whole?" + query, f.read())
        return status, json.loads(data)

    def asset_count(self):
        return self.json("GET", "/api/timeline")["count"]

    def stream(self):
        """The change stream of every asset, read on a thread: its events in a queue."""
        events = queue.Queue()
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=600)
        connection.request("GET", "/api/changes/stream?watch=")
        response = connection.getresponse()
        if response.status != 200:
            raise AssertionError(f"{self.name}: the change stream answered {response.status}")

        def read():
            event, data = None, []
            try:
                for raw in response:
                    line = raw.decode().rstrip("\r\n")
                    if line.startswith("event:"):
                        event = line[6:].strip()
                    elif line.startswith("data:"):
                        data.append(line[5:].strip())
                    elif line == "" and event:
                        events.put((event, json.loads("\n".join(data)) if data else None))
                        event, data = None, []
            except Exception:  # the connection closed under the reader
                pass

        threading.Thread(target=read, daemon=True).start()
        return connection, events


def new_database_and_bucket():
    """A new database on the PostgreSQL server scripts/services started and a new bucket on its S3
    server: the database's address and the `lightbox` options naming the bucket."""
    postgres = os.environ["LIGHTBOX_TEST_POSTGRES"]
    s3 = os.environ["LIGHTBOX_TEST_S3"]
    name = "cluster_" + uuid.uuid4().hex[:12]
    socket_folder = urllib.parse.parse_qs(urllib.parse.urlparse(postgres).query)["host"][0]
    subprocess.run(["createdb", "-h", socket_folder, "-U", "lightbox", name], check=True)
    bucket = "cluster-" + uuid.uuid4().hex[:12]
    urllib.request.urlopen(urllib.request.Request(f"{s3}/{bucket}", method="PUT")).read()
    return f"postgres://lightbox@/{name}?host={socket_folder}", ["--originals", f"s3://{bucket}/photos", "--s3-endpoint", s3]


def hevc_movie(source, target):
    """`source` (a corpus movie) encoded as HEVC, as iPhones record: a movie browsers cannot play."""
    subprocess.run(
        ["ffmpeg", "-v", "error", "-i", source, "-c:v", "libx265", "-preset", "ultrafast", "-x265-params",
         "log-level=error", "-tag:v", "hvc1", "-c:a", "copy", "-f", "mov", target], check=True)


class ClusterTests(unittest.TestCase):
    def setUp(self):
        self.work = tempfile.mkdtemp(prefix="lightbox-cluster-")
        self.processes = []
        # A database and a bucket of this run's own.
        self.database, self.originals = new_database_and_bucket()

    def tearDown(self):
        for process in self.processes:
            process.stop()
        shutil.rmtree(self.work, ignore_errors=True)

    def folder(self, name):
        return os.path.join(self.work, name + ".lightbox")

    def start(self, process):
        self.processes.append(process)
        return process

    def lightbox(self, *arguments, environment=None):
        env = dict(os.environ, **CREDENTIALS, **(environment or {}))
        return subprocess.run([LIGHTBOX] + list(arguments), capture_output=True, text=True, env=env)

    def test_servers_and_workers_share_one_library(self):
        photos = corpus_photos(53, self.work)
        seed, pushed, shared = photos[0], photos[1], photos[2:52]
        # The library is made by an import into the first folder; the others join it with the
        # catalog's address alone (the catalog names the bucket).
        made = self.lightbox("import", "--library", self.folder("one"), "--database", self.database, *self.originals, seed)
        self.assertEqual(made.returncode, 0, made.stderr)
        one = self.start(Server("serve-one", self.folder("one"), self.database, self.work))
        two = self.start(Server("serve-two", self.folder("two"), self.database, self.work))
        self.assertEqual(two.asset_count(), 1)

        # An upload through the first server: pushed to the second's stream, and fetched there.
        connection, events = two.stream()
        event, ready = events.get(timeout=60)
        self.assertEqual(event, "ready")
        status, answer = one.upload(pushed)
        self.assertEqual((status, answer.get("outcome")), (201, "imported"), answer)
        identifier = answer["asset"]["localIdentifier"]
        deadline = time.monotonic() + 60
        while True:
            event, data = events.get(timeout=max(0.1, deadline - time.monotonic()))
            if event == "change" and any(identifier in f["insertedIdentifiers"] for f in data["fetches"]):
                break
        connection.close()
        listed = two.json("GET", "/api/assets?limit=10")
        self.assertIn(identifier, [asset["localIdentifier"] for asset in listed["assets"]])

        # The same 50 files through both servers at once: one asset each.
        def send(server_and_path):
            server, path = server_and_path
            status, answer = server.upload(path)
            return path, server.name, status, answer.get("outcome"), answer.get("asset", {}).get("localIdentifier")

        # Each file to both at once, the first asked alternating.
        work = [(server, path) for n, path in enumerate(shared) for server in ((one, two) if n % 2 else (two, one))]
        with ThreadPoolExecutor(max_workers=6) as pool:
            results = list(pool.map(send, work))
        for path in shared:
            outcomes = sorted((status, outcome) for p, _, status, outcome, _ in results if p == path)
            self.assertEqual(outcomes, [(200, "duplicate"), (201, "imported")], path)
            assets = {asset for p, _, _, _, asset in results if p == path}
            self.assertEqual(len(assets), 1, f"{path}: both answers name one asset")
        self.assertEqual(one.asset_count(), 52)
        self.assertEqual(two.asset_count(), 52)
        imported = [name for _, name, status, _, _ in results if status == 201]
        print(f"\nimported by serve-one: {imported.count('serve-one')}, by serve-two: {imported.count('serve-two')}")
        existing = two.json("POST", "/api/uploads/check", {"sha256": [sha256(p) for p in shared]})["existing"]
        self.assertEqual(len(existing), 50)

        # A movie browsers cannot play, uploaded: its copy is a job. The first worker takes it and
        # is killed holding it; the second, running beside it all along, takes it over.
        movie = os.path.join(self.work, "HEVC_0001.MOV")
        hevc_movie(os.path.join(CORPUS, "forensics/original-files/movie1/VID_20191220_170832.mp4"), movie)
        status, answer = two.upload(movie)
        self.assertEqual(status, 201, answer)
        movie_id = answer["asset"]["localIdentifier"]
        # The photos' faces, text, things and CLIP embeddings and the movie's place wait too, for a runner with an
        # analysis service (these have none).
        analyses = {"faces": 1, "places": 1, "text": 1, "things": 1, "clip": 1}
        self.assertEqual(one.json("GET", "/api/jobs")["waiting"], {"playableMovie": 1, **analyses})
        first = self.start(Process(
            "worker-one", ["worker", "--library", self.folder("worker-one"), "--database", self.database], self.work,
            ready="paused at job-started", environment={"LIGHTBOX_TEST_PAUSE_AT": "job-started"}))
        running = one.json("GET", "/api/jobs")["running"]
        self.assertEqual([(r["job"]["subject"], r["run"]["worker"].endswith(f"pid {first.process.pid}")) for r in running],
                         [(movie_id, True)])
        second = self.start(Process(
            "worker-two", ["worker", "--library", self.folder("worker-two"), "--database", self.database], self.work,
            ready="no job waits"))
        first.kill()
        second.wait_for(f"done: movie made playable in browsers ({movie_id})", seconds=300)
        queue_now = two.json("GET", "/api/jobs")
        self.assertEqual(queue_now, {"waiting": analyses, "running": [], "failed": []})
        second.stop()
        self.assertEqual(second.process.returncode, 0, second.said())
        self.assertIn("1 job done, 0 failed", second.said())
        self.assertIn(f"started: movie made playable in browsers ({movie_id})", second.said())
        # Both servers serve the copy the worker made (from the bucket), without making it.
        for server in (one, two):
            status, data = server.request("GET", f"/api/assets/{movie_id}/movie?playable=true", timeout=60)
            self.assertEqual(status, 200, f"{server.name}: {data[:200]!r}")
            copy = os.path.join(self.work, server.name + ".mov")
            with open(copy, "wb") as f:
                f.write(data)
            codec = subprocess.run(["ffprobe", "-v", "error", "-select_streams", "v:0", "-show_entries",
                                    "stream=codec_name", "-of", "csv=p=0", copy], capture_output=True, text=True)
            self.assertEqual(codec.stdout.strip(), "h264", server.name)

        # A server killed during an upload, after its original is in the bucket and before its
        # row commits: no asset without its original, and the upload again makes the asset.
        one.stop()
        late = photos[52]
        one = self.start(Server("serve-one-again", self.folder("one"), self.database, self.work,
                                environment={"LIGHTBOX_TEST_PAUSE_AT": "import-stored"}))
        def send_late():
            try:
                one.upload(late)
            except OSError:
                pass  # the server died under it, as meant

        sender = threading.Thread(target=send_late, daemon=True)
        try:
            sender.start()
            one.wait_for("paused at import-stored")
        finally:
            one.kill()
        sender.join(timeout=60)
        self.assertEqual(two.asset_count(), 53)
        self.assertEqual(two.json("POST", "/api/uploads/check", {"sha256": [sha256(late)]})["existing"], {})
        check = self.lightbox("check", "--library", self.folder("two"))
        self.assertEqual(check.returncode, 0, check.stdout + check.stderr)
        status, answer = two.upload(late)
        self.assertEqual((status, answer.get("outcome")), (201, "imported"), answer)
        self.assertEqual(two.asset_count(), 54)
        check = self.lightbox("check", "--library", self.folder("two"))
        self.assertEqual(check.returncode, 0, check.stdout + check.stderr)


if __name__ == "__main__":
    unittest.main()
