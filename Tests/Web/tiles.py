"""A tile server for the browser tests' maps: any /Z/X/Y.png within a zoom's range is a 256-pixel
PNG (a pale land colour, its edges drawn, alternating shades so that tiles tell apart on a
screenshot), anything else 404. Each tile asked for is counted, and /count answers how many.

    python tiles.py PORT_FILE    (writes the port it listens on to PORT_FILE)
"""
import http.server
import re
import struct
import sys
import threading
import zlib


def png(shade):
    rows = []
    for y in range(256):
        row = bytearray([0])
        for x in range(256):
            edge = x < 1 or y < 1
            row += bytes((150, 150, 160) if edge else (232 - shade, 236 - shade, 226 - shade))
        rows.append(bytes(row))
    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)
    header = struct.pack(">IIBBBBB", 256, 256, 8, 2, 0, 0, 0)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(b"".join(rows)))
            + chunk(b"IEND", b""))


TILES = (png(0), png(14))
asked = 0
lock = threading.Lock()


class Tiles(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        global asked
        if self.path == "/count":
            self.answer(200, "text/plain", str(asked).encode())
            return
        found = re.fullmatch(r"/(\d{1,2})/(\d{1,7})/(\d{1,7})\.png", self.path)
        if not found:
            self.answer(404, "text/plain", b"no such tile")
            return
        z, x, y = map(int, found.groups())
        if z > 22 or x >= 1 << z or y >= 1 << z:
            self.answer(404, "text/plain", b"no such tile")
            return
        with lock:
            asked += 1
        self.answer(200, "image/png", TILES[(x + y) % 2])

    def answer(self, status, kind, body):
        self.send_response(status)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "max-age=3600")
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *arguments):
        pass


server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Tiles)
with open(sys.argv[1], "w") as port:
    port.write(str(server.server_address[1]))
server.serve_forever()
