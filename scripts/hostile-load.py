#!/usr/bin/env python3
"""Sends hostile files and requests of every kind issue 46 found to a running `lightbox serve`,
four at a time, for a while, and watches that the server stays up, within its memory bound, and
keeps answering reads quickly throughout. Run by scripts/check-hostile, which starts the server.

Each kind is made here from real files of .corpus/ (the shapes are the findings'):
  xmp-png       a real PNG carrying an XMP packet of an 8 MB namespace and a million attributes
  heif-extents  a HEIF whose XMP item names the same 200 KB 65,535 times (13 GB joined)
  movie-samples a real phone movie whose tables claim 80 million samples
  movie-tracks  the same movie with its first track repeated to 999 tracks
  png-interlace a real PNG whose header says 14000x14000, 16-bit, interlaced (1.8 GB a decode)
  rotate        an edit preview of rotate=1e300
  passwords     twenty wrong passwords at once
  trickle       an upload's body a byte every two seconds

Prints each check, then "N passed, M failed"; exits 1 when any failed.
"""

import argparse
import http.client
import json
import os
import struct
import sys
import tempfile
import threading
import time
import zlib

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")


def corpus(path):
    with open(os.path.join(ROOT, ".corpus", path), "rb") as file:
        return file.read()


def png_chunk(kind, data):
    body = kind + data
    return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body) & 0xFFFFFFFF)


def xmp_png():
    photo = corpus("pillow/images/hopper.png")
    packet = b'<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:Description xmlns:h="' + b"u" * (8 << 20) + b'"'
    packet += b' h:a="1"' * 1_000_000 + b"/></x:xmpmeta>"
    chunk = png_chunk(b"iTXt", b"XML:com.adobe.xmp\0" + b"\1\0\0\0" + zlib.compress(packet, 9))
    return photo[:33] + chunk + photo[33:]


def box(kind, payload):
    return struct.pack(">I", 8 + len(payload)) + kind + payload


def heif_extents():
    packet = b'<x:xmpmeta xmlns:xmp="http://ns.adobe.com/xap/1.0/" xmp:Rating="3"/>' + b" " * 200_000
    extents = 65_535
    ftyp = box(b"ftyp", b"heic" + b"\0" * 4 + b"mif1heic")
    infe = box(b"infe", bytes([2, 0, 0, 0]) + struct.pack(">HH", 1, 0) + b"mime\0application/rdf+xml\0")
    iinf = box(b"iinf", b"\0\0\0\0" + struct.pack(">H", 1) + infe)

    def iloc(offset):
        payload = bytes([0, 0, 0, 0, 0x44, 0]) + struct.pack(">HHHH", 1, 1, 0, extents)
        return box(b"iloc", payload + struct.pack(">II", offset, len(packet)) * extents)

    offset = len(ftyp) + 8 + 4 + len(iinf) + len(iloc(0)) + 8
    return ftyp + box(b"meta", b"\0\0\0\0" + iinf + iloc(offset)) + box(b"mdat", packet)


MOVIE = "forensics/original-files/movie1/VID_20191220_170832.mp4"


def movie_samples():
    movie = bytearray(corpus(MOVIE))
    for kind, offset, value in [(b"stsz", 8, (1, 80_000_000)), (b"stsc", 16, (80_000_000,)), (b"stts", 12, (80_000_000,))]:
        at = movie.find(kind)
        movie[at + offset : at + offset + 4 * len(value)] = struct.pack(">" + "I" * len(value), *value)
    return bytes(movie)


def movie_tracks():
    movie = corpus(MOVIE)
    moov, trak = movie.find(b"moov") - 4, movie.find(b"trak") - 4
    track = movie[trak : trak + struct.unpack(">I", movie[trak : trak + 4])[0]]
    copies = track * 998
    size = struct.unpack(">I", movie[moov : moov + 4])[0] + len(copies)
    joined = movie[: trak + len(track)] + copies + movie[trak + len(track) :]
    return joined[:moov] + struct.pack(">I", size) + joined[moov + 4 :]


def png_interlace():
    photo = corpus("pillow/images/pil123rgba.png")
    header = struct.pack(">II", 14000, 14000) + bytes([16, 2, 0, 0, 1])
    return photo[:8] + png_chunk(b"IHDR", header) + photo[33:]


class Server:
    def __init__(self, port, token, pid):
        self.port, self.token, self.pid = port, token, pid

    def request(self, method, path, body=None, headers=None, timeout=60):
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=timeout)
        try:
            all_headers = {"Authorization": "Bearer " + self.token}
            all_headers.update(headers or {})
            connection.request(method, path, body=body, headers=all_headers)
            response = connection.getresponse()
            return response.status, response.read()
        finally:
            connection.close()

    def upload(self, name, data):
        return self.request(
            "POST", "/api/uploads/whole?filename=" + name, data, {"Content-Type": "application/octet-stream"}
        )[0]

    def rss(self):
        with open("/proc/%d/status" % self.pid) as status:
            for line in status:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) * 1024
        return 0


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--token", required=True)
    parser.add_argument("--pid", type=int, required=True)
    parser.add_argument("--seconds", type=float, default=60)
    parser.add_argument("--memory-bound", type=int, default=1 << 30)
    parser.add_argument("--read-bound", type=float, default=1.0)
    parser.add_argument("--kinds", help="the kinds to send, comma-separated (all by default)")
    arguments = parser.parse_args()
    server = Server(arguments.port, arguments.token, arguments.pid)

    files = {
        "xmp-png": ("IMG_XMP.png", xmp_png()),
        "heif-extents": ("IMG_EXTENTS.heic", heif_extents()),
        "movie-samples": ("VID_SAMPLES.mp4", movie_samples()),
        "movie-tracks": ("VID_TRACKS.mp4", movie_tracks()),
        "png-interlace": ("IMG_INTERLACE.png", png_interlace()),
    }
    status, body = server.request("GET", "/api/assets?limit=1")
    asset = json.loads(body)["assets"][0]["localIdentifier"]

    statuses = {}
    lock = threading.Lock()
    stop = time.monotonic() + arguments.seconds

    def note(kind, status):
        with lock:
            statuses.setdefault(kind, []).append(status)

    def trickle():
        connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=30)
        try:
            connection.putrequest("POST", "/api/uploads/whole?filename=IMG_SLOW.jpg")
            connection.putheader("Authorization", "Bearer " + server.token)
            connection.putheader("Content-Type", "application/octet-stream")
            connection.putheader("Content-Length", "100000")
            connection.endheaders()
            for _ in range(15):
                connection.send(b"x")
                time.sleep(2)
            return -1  # never closed
        except (OSError, http.client.HTTPException):
            return 0  # closed by the server, as it must
        finally:
            connection.close()

    def passwords():
        results = []
        threads = [
            threading.Thread(
                target=lambda: results.append(
                    server.request(
                        "POST", "/api/session", json.dumps({"name": "owner", "password": "not it"}),
                        {"Content-Type": "application/json"},
                    )[0]
                )
            )
            for _ in range(20)
        ]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        # Sent together, they may still arrive over seconds, and one that comes after its wait
        # is heard; before the mend every one was.
        return 401 if results.count(429) > 0 and results.count(401) + results.count(429) == 20 else -1

    actions = [(kind, (lambda name=name, data=data: server.upload(name, data))) for kind, (name, data) in files.items()]
    actions += [
        (
            "rotate",
            lambda: server.request(
                "POST", "/api/assets/%s/edits/preview" % asset, json.dumps({"filters": ["rotate=1e300"]}),
                {"Content-Type": "application/json"},
            )[0],
        ),
        ("passwords", passwords),
        ("trickle", trickle),
    ]

    if arguments.kinds:
        chosen = arguments.kinds.split(",")
        actions = [(kind, action) for kind, action in actions if kind in chosen]

    def attacker(start):
        index = start
        while time.monotonic() < stop:
            kind, action = actions[index % len(actions)]
            index += 1
            try:
                note(kind, action())
            except (OSError, http.client.HTTPException) as error:
                note(kind, "error: %s" % error)

    reads = []
    peak = [0]

    def reader():
        paths = ["/api/assets?limit=20", "/api/assets/%s/image?w=256" % asset]
        index = 0
        while time.monotonic() < stop:
            began = time.monotonic()
            try:
                status, _ = server.request("GET", paths[index % 2], timeout=10)
            except (OSError, http.client.HTTPException):
                status = 0
            reads.append((time.monotonic() - began, status))
            index += 1
            time.sleep(0.2)

    def watcher():
        while time.monotonic() < stop:
            try:
                peak[0] = max(peak[0], server.rss())
            except OSError:
                return
            time.sleep(0.1)

    threads = [threading.Thread(target=attacker, args=(n * 2,)) for n in range(4)]
    threads += [threading.Thread(target=reader), threading.Thread(target=watcher)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    checks = []

    def check(name, ok, detail):
        checks.append(ok)
        print("%s %s: %s" % ("ok  " if ok else "FAIL", name, detail))

    for kind, seen in sorted(statuses.items()):
        errors = [status for status in seen if not isinstance(status, int) or status >= 500 or status < 0]
        check(kind, not errors and len(seen) > 0, "%d sent, answers %s" % (len(seen), sorted(set(map(str, seen)))))
    slowest = max((seconds for seconds, _ in reads), default=0)
    failed_reads = [status for _, status in reads if status != 200]
    check("reads", not failed_reads and len(reads) > 0, "%d, all 200: %s" % (len(reads), not failed_reads))
    check("read time", slowest < arguments.read_bound, "slowest %.3f s (bound %.1f s)" % (slowest, arguments.read_bound))
    check("memory", 0 < peak[0] < arguments.memory_bound, "peak %d MB (bound %d MB)" % (peak[0] >> 20, arguments.memory_bound >> 20))
    status, _ = server.request("GET", "/api/assets?limit=1")
    check("alive", status == 200, "the server answers %d after the run" % status)
    failed = checks.count(False)
    print("%d passed, %d failed" % (len(checks) - failed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
