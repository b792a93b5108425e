#!/usr/bin/env python3
"""Watches a running `lightbox serve` while something else fuzzes it: its memory (resident,
from /proc, every quarter second) and its liveness (a read of one asset every second, which must
answer within --read-bound seconds). Runs until SIGTERM or SIGINT, then prints what it saw and
exits 1 when the server died, a read failed or was late, or memory passed --memory-bound.

  scripts/watch-server.py --pid PID --port PORT --token TOKEN [--memory-bound BYTES] [--read-bound S]
"""

import argparse
import http.client
import signal
import sys
import threading
import time


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--pid", type=int, required=True)
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--token", required=True)
    parser.add_argument("--memory-bound", type=int, default=1 << 30)
    parser.add_argument("--read-bound", type=float, default=2.0)
    arguments = parser.parse_args()

    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    signal.signal(signal.SIGINT, lambda *_: stop.set())
    peak, reads, slowest, failures = 0, 0, 0.0, []

    def rss():
        try:
            with open("/proc/%d/status" % arguments.pid) as status:
                for line in status:
                    if line.startswith("VmRSS:"):
                        return int(line.split()[1]) * 1024
        except OSError:
            return None
        return 0

    next_read = 0.0
    while not stop.is_set():
        resident = rss()
        if resident is None:
            failures.append("the server is gone")
            break
        peak = max(peak, resident)
        now = time.monotonic()
        if now >= next_read:
            next_read = now + 1.0
            try:
                connection = http.client.HTTPConnection("127.0.0.1", arguments.port, timeout=10)
                connection.request("GET", "/api/assets?limit=1", headers={"Authorization": "Bearer " + arguments.token})
                status = connection.getresponse().status
                took = time.monotonic() - now
                connection.close()
                reads += 1
                slowest = max(slowest, took)
                if status != 200:
                    failures.append("a read answered %d" % status)
                elif took > arguments.read_bound:
                    failures.append("a read took %.1f s" % took)
            except OSError as error:
                failures.append("a read failed: %s" % error)
        stop.wait(0.25)

    if peak >= arguments.memory_bound:
        failures.append("memory reached %d MB, past %d MB" % (peak >> 20, arguments.memory_bound >> 20))
    print(
        "watch: %d reads, slowest %.3f s, peak memory %d MB; %s"
        % (reads, slowest, peak >> 20, "; ".join(failures[:5]) if failures else "the server stayed up")
    )
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
