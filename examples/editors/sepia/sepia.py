#!/usr/bin/python3
"""A Lightbox editor in Python with Pillow: sepia toning and a vignette.

It speaks Lightbox's editor protocol (docs/EDITORS.md): one JSON request on standard input,
one JSON answer on standard output. Its recipe, format "org.lightbox.example.sepia", holds its
settings; continuing it, the editor is given the original and the recipe, and the settings a
new run does not give keep their recipe's values: the edit is redone from the original, never
stacked on its own render. It runs Debian's Python (/usr/bin/python3), which has Pillow from
the python3-pil package.

    lightbox edit ID --editor org.lightbox.example.sepia --filter tone=0.6 --filter vignette=0.5
"""
import base64
import json
import sys

from PIL import Image, ImageChops, ImageOps, UnidentifiedImageError

FORMAT = "org.lightbox.example.sepia"
VERSION = "1.0"
DEFAULTS = {"tone": 0.8, "vignette": 0.3}
# The EXIF orientations, as Pillow turns them upright.
UPRIGHT = {
    2: Image.Transpose.FLIP_LEFT_RIGHT, 3: Image.Transpose.ROTATE_180, 4: Image.Transpose.FLIP_TOP_BOTTOM,
    5: Image.Transpose.TRANSPOSE, 6: Image.Transpose.ROTATE_270, 7: Image.Transpose.TRANSVERSE,
    8: Image.Transpose.ROTATE_90,
}
# Pillow refuses larger images (its decompression-bomb check), as Lightbox's pixel budget does.
Image.MAX_IMAGE_PIXELS = 100_000_000


def answer(obj):
    json.dump(obj, sys.stdout)
    sys.stdout.write("\n")


def settings(request):
    """The recipe's settings, then the filters' NAME=VALUE on top; each from 0 to 1."""
    values = dict(DEFAULTS)
    previous = request["input"].get("adjustmentData")
    if previous:
        values.update(json.loads(base64.b64decode(previous["data"])))
    for item in request.get("filters", []):
        name, _, value = item.partition("=")
        if name not in DEFAULTS:
            raise ValueError("unknown setting %s (it has tone and vignette)" % name)
        values[name] = float(value)
    for name, value in values.items():
        if not 0 <= value <= 1:
            raise ValueError("%s must be from 0 to 1, not %s" % (name, value))
    return values


def render(source, orientation, values):
    image = Image.open(source)
    exif = image.getexif()
    icc = image.info.get("icc_profile")
    image = image.convert("RGB")
    if orientation in UPRIGHT:
        image = image.transpose(UPRIGHT[orientation])
    # Toning: the grey image coloured from dark brown to warm white, mixed in by tone.
    toned = ImageOps.colorize(ImageOps.grayscale(image), black=(38, 24, 10), white=(255, 240, 205), mid=(150, 110, 70))
    image = Image.blend(image, toned, values["tone"])
    # Vignette: darker towards the corners, by up to the vignette setting.
    if values["vignette"] > 0:
        ring = Image.radial_gradient("L").resize(image.size, Image.Resampling.BILINEAR)
        shade = ring.point(lambda v: 255 - int(v * values["vignette"] * 0.8))
        image = ImageChops.multiply(image, Image.merge("RGB", (shade, shade, shade)))
    exif[0x0112] = 1  # upright now
    return image, exif, icc


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
    try:
        values = settings(request)
    except ValueError as error:
        answer({"error": str(error)})
        return
    source = request["input"]["fullSizeImage"]
    try:
        image, exif, icc = render(source, request["input"].get("orientation", 1), values)
    except UnidentifiedImageError:
        answer({"error": "Pillow cannot read %s files" % request["input"].get("uniformTypeIdentifier", "these")})
        return
    image.save(request["output"]["renderedContent"], "JPEG", quality=92, exif=exif.tobytes(), icc_profile=icc)
    recipe = base64.b64encode(json.dumps(values, sort_keys=True).encode()).decode()
    answer({"adjustmentData": {"formatIdentifier": FORMAT, "formatVersion": VERSION, "data": recipe}})


if __name__ == "__main__":
    main()
