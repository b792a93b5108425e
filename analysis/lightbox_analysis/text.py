"""Text in an image: its lines, where each lies, what it says and how sure the model is.

The models are PaddleOCR's PP-OCRv4 as PyPI's `rapidocr_onnxruntime` ships them inside its
wheel (Apache-2.0, code and weights): a text detector (DB), an orientation classifier and a
line recogniser (Chinese and Latin scripts), run by ONNX Runtime on the CPU. Nothing is
fetched: the weights are files of the package.

Most photos hold no text, and the whole pipeline on a 1024-pixel preview takes about half a
second of a core. So a cheap check goes first: the detector alone on the image shrunk to
`CHECK_SIDE` pixels (a tenth of the time). Without a box there, the photo has no text and costs
no more; with one, the detector runs again at the preview's size and each line is recognised.
"""

import importlib.metadata
import math
import unicodedata
from dataclasses import dataclass

import cv2
import numpy

# Bumped whenever what the pipeline answers for the same image changes (its settings, the
# check), so that a library reads again what an older revision answered, and only that.
MODEL_REVISION = 1
# The cheap check's side: a line of text 12 pixels high in a 1024-pixel preview is 5 here, about
# the least the detector finds.
CHECK_SIDE = 480
# A recognised line below this confidence is dropped (the package's own default is 0.5).
MIN_CONFIDENCE = 0.6
MAX_TEXT = 500


def package_version():
    return importlib.metadata.version("rapidocr_onnxruntime")


@dataclass
class TextLine:
    """A line found, its box in the image's normalised coordinates (0 to 1, origin at the top
    left: the rectangle around the detector's quadrilateral)."""

    text: str
    x: float
    y: float
    width: float
    height: float
    confidence: float

    def as_json(self):
        return {
            "text": self.text,
            "box": {"x": self.x, "y": self.y, "width": self.width, "height": self.height},
            "confidence": self.confidence,
        }


def clean(text):
    """The text as a library can keep it: no control or format character (a direction override
    could reorder what a person reads), spaces run together, at most MAX_TEXT characters."""
    kept = "".join(c for c in text if unicodedata.category(c)[0] != "C" or c in "\u200c\u200d")
    return " ".join(kept.split())[:MAX_TEXT]


class TextModels:
    """The pipeline, loaded once. ONNX Runtime's sessions may be run from several threads, but
    each keeps one thread of its own, so that `threads` analyses at once use `threads` cores."""

    def __init__(self):
        from rapidocr_onnxruntime import RapidOCR

        self.version = package_version()
        self.identifier = f"ppocrv4-rapidocr_onnxruntime-{self.version}-r{MODEL_REVISION}"
        self.ocr = RapidOCR(
            intra_op_num_threads=1,
            inter_op_num_threads=1,
            det_limit_type="max",
            det_limit_side_len=1024,
            text_score=MIN_CONFIDENCE,
            print_verbose=False,
        )

    def describe(self):
        return {
            "id": self.identifier,
            "detector": "PP-OCRv4 det (DB)",
            "recogniser": "PP-OCRv4 rec (Chinese and Latin scripts)",
            "package": f"rapidocr_onnxruntime {self.version}",
            "licence": "Apache-2.0 (code and weights)",
        }

    def has_text(self, image):
        """The cheap check: any box of text on the image shrunk to CHECK_SIDE pixels."""
        height, width = image.shape[:2]
        scale = min(1.0, CHECK_SIDE / max(height, width))
        small = image
        if scale < 1:
            size = (max(1, round(width * scale)), max(1, round(height * scale)))
            small = cv2.resize(image, size, interpolation=cv2.INTER_AREA)
        boxes, _ = self.ocr.text_det(small)
        return boxes is not None and len(boxes) > 0

    def lines(self, image, most):
        """The lines of text in an RGB array, top to bottom and left to right, at most `most`.
        Answers (lines, checked_only): checked_only when the cheap check found nothing."""
        height, width = image.shape[:2]
        # The package's models take OpenCV's channel order.
        image = numpy.ascontiguousarray(image[:, :, ::-1])
        if height < 8 or width < 8 or not self.has_text(image):
            return [], True
        result, _ = self.ocr(image)
        found = []
        for quadrilateral, text, confidence in result or []:
            text = clean(str(text))
            try:
                confidence = float(confidence)
                xs = [float(point[0]) for point in quadrilateral]
                ys = [float(point[1]) for point in quadrilateral]
            except (TypeError, ValueError, IndexError):
                continue
            if not text or not math.isfinite(confidence) or not all(map(math.isfinite, xs + ys)):
                continue
            left, right = max(0.0, min(xs)), min(float(width), max(xs))
            top, bottom = max(0.0, min(ys)), min(float(height), max(ys))
            if right <= left or bottom <= top:
                continue
            found.append(
                TextLine(
                    text=text,
                    x=left / width,
                    y=top / height,
                    width=(right - left) / width,
                    height=(bottom - top) / height,
                    confidence=min(1.0, max(0.0, confidence)),
                )
            )
        found.sort(key=lambda line: (round(line.y * 50), line.x))
        return found[:most], False


def rgb_array(body, width, height):
    return numpy.frombuffer(body, dtype=numpy.uint8).reshape(height, width, 3)
