#!/usr/bin/env python3
"""A Lightbox external editor: turns a photo into its negative, optionally stronger or weaker.

It speaks Lightbox's editor protocol (docs/EDITORS.md): one JSON request on standard input,
one JSON answer on standard output. Its recipe is its own format, "org.lightbox.example.negative",
which it can continue; the pixels go through the `vips` command (Debian's libvips-tools).

    lightbox edit ID --editor examples/editors/negative.py --filter strength=0.8
"""
import base64
import json
import subprocess
import sys

FORMAT = "org.lightbox.example.negative"
VERSION = "1.0"


def answer(obj):
    json.dump(obj, sys.stdout)
    sys.stdout.write("\n")


def main():
    request = json.load(sys.stdin)
    if request.get("protocol") != 1:
        answer({"error": "this editor speaks protocol 1"})
        return
    if request["action"] == "canHandle":
        data = request["adjustmentData"]
        answer({"canHandle": data["formatIdentifier"] == FORMAT and data["formatVersion"].startswith("1.")})
        return
    if request["action"] != "edit":
        answer({"error": "unknown action " + request["action"]})
        return
    settings = dict(f.split("=", 1) for f in request.get("filters", []) if "=" in f)
    strength = float(settings.get("strength", "1"))
    previous = request["input"].get("adjustmentData")
    if previous:  # continuing our own recipe: the strengths multiply
        strength *= json.loads(base64.b64decode(previous["data"]))["strength"]
    source = request["input"]["fullSizeImage"]
    output = request["output"]["renderedContent"]
    # Upright first (the input's orientation), then out = (1 - 2s) * in + 255 s; no metadata.
    subprocess.run(["vips", "autorot", source, output + ".v"], check=True)
    subprocess.run(["vips", "linear", "--uchar", "--", output + ".v", output + "[Q=92,strip]",
                    str(1 - 2 * strength), str(255 * strength)], check=True)
    subprocess.run(["rm", "-f", output + ".v"], check=True)
    recipe = base64.b64encode(json.dumps({"strength": strength}).encode()).decode()
    answer({"adjustmentData": {"formatIdentifier": FORMAT, "formatVersion": VERSION, "data": recipe}})


if __name__ == "__main__":
    main()
