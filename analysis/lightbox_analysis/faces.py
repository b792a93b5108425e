"""Faces in an image: where they are, five landmarks, a 128-number embedding and a quality.

The models are dlib's (PyPI `dlib-bin`) with the weights of PyPI `face_recognition_models`
(CC0): the HOG frontal face detector (built into dlib, no weights file), or on a machine that
can afford it the CNN detector (`mmod_human_face_detector.dat`); the 5-point landmark model
(`shape_predictor_5_face_landmarks.dat`); the ResNet embedding
(`dlib_face_recognition_resnet_model_v1.dat`). The 68-point landmark model in the same package
is never loaded: its training data (iBUG 300-W) excludes commercial use.
"""

import math
import os
from dataclasses import dataclass

import dlib
import numpy

# Bumped whenever what the detector, the landmarks or the embedding answer for the same image
# changes, so that a library re-analyses what an older model answered (and only that).
MODEL_REVISION = 1


def models_folder():
    """The folder of face_recognition_models' weights (the package is data only)."""
    import face_recognition_models

    return os.path.join(os.path.dirname(face_recognition_models.__file__), "models")


@dataclass
class Face:
    """A face found, in the image's normalised coordinates (0 to 1, origin at the top left)."""

    x: float
    y: float
    width: float
    height: float
    landmarks: list
    embedding: list
    quality: float

    def as_json(self):
        return {
            "box": {"x": self.x, "y": self.y, "width": self.width, "height": self.height},
            "landmarks": [{"x": x, "y": y} for x, y in self.landmarks],
            "quality": self.quality,
            "embedding": self.embedding,
        }


class FaceModels:
    """The three models, loaded once and shared by every request (dlib's are read-only)."""

    def __init__(self, detector="hog", folder=None):
        folder = folder or models_folder()
        self.detector_name = detector
        if detector == "cnn":
            self.cnn = dlib.cnn_face_detection_model_v1(os.path.join(folder, "mmod_human_face_detector.dat"))
            self.hog = None
        elif detector == "hog":
            self.hog = dlib.get_frontal_face_detector()
            self.cnn = None
        else:
            raise ValueError(f"unknown face detector {detector!r}: hog or cnn")
        self.landmarks = dlib.shape_predictor(os.path.join(folder, "shape_predictor_5_face_landmarks.dat"))
        self.embedder = dlib.face_recognition_model_v1(
            os.path.join(folder, "dlib_face_recognition_resnet_model_v1.dat")
        )

    @property
    def identifier(self):
        """What a library records beside each face: a different identifier means analyse again."""
        return f"dlib-{dlib.__version__}-{self.detector_name}-5pt-resnet128-r{MODEL_REVISION}"

    def describe(self):
        return {
            "id": self.identifier,
            "detector": f"dlib {self.detector_name.upper()} face detector",
            "landmarks": "dlib shape_predictor_5_face_landmarks",
            "embedding": "dlib_face_recognition_resnet_model_v1",
            "dimensions": 128,
            "sameFaceDistance": 0.6,
        }

    def detect(self, pixels):
        """(rectangle, score) of each face in `pixels` (an RGB array, rows by columns by 3).

        The HOG detector finds faces down to 80 pixels; a preview 1024 pixels on its long side is
        searched once more at twice its size, so that the faces of a group photo (40 pixels and
        up there) are found too.
        """
        height, width = pixels.shape[:2]
        upsample = 1 if max(width, height) <= 1280 else 0
        if self.cnn is not None:
            found = self.cnn(pixels, upsample)
            return [(d.rect, float(d.confidence)) for d in found]
        rects, scores, _ = self.hog.run(pixels, upsample, -0.2)
        return list(zip(rects, (float(s) for s in scores)))

    def faces(self, pixels, limit):
        """Every face found in `pixels`, the surest first, at most `limit`."""
        height, width = pixels.shape[:2]
        found = sorted(self.detect(pixels), key=lambda pair: -pair[1])[:limit]
        faces = []
        for rect, score in found:
            left, top = max(0, rect.left()), max(0, rect.top())
            right, bottom = min(width, rect.right() + 1), min(height, rect.bottom() + 1)
            if right - left < 8 or bottom - top < 8:
                continue
            box = dlib.rectangle(left, top, right - 1, bottom - 1)
            shape = self.landmarks(pixels, box)
            embedding = self.embedder.compute_face_descriptor(pixels, shape)
            points = [(shape.part(i).x / width, shape.part(i).y / height) for i in range(shape.num_parts)]
            faces.append(
                Face(
                    x=left / width,
                    y=top / height,
                    width=(right - left) / width,
                    height=(bottom - top) / height,
                    landmarks=[(_clamp(x), _clamp(y)) for x, y in points],
                    embedding=[round(float(v), 6) for v in embedding],
                    quality=quality(score, right - left, self.cnn is not None),
                )
            )
        return faces


def quality(score, side, cnn):
    """How much a face can be trusted to say who it is, 0 to 1: the detector's confidence (a
    logistic of its score; HOG scores sit around 0 to 3, the CNN's around 0 to 1.5) times a size
    factor (faces under 64 pixels across carry less detail for the embedding)."""
    confidence = 1 / (1 + math.exp(-(score * (3 if cnn else 2))))
    size = min(1.0, side / 64)
    return round(confidence * size, 4)


def _clamp(value):
    return min(1.0, max(0.0, value))


def rgb_array(body, width, height):
    """The request's raw 8-bit RGB rows as an array dlib reads without a copy."""
    return numpy.frombuffer(body, dtype=numpy.uint8).reshape((height, width, 3))
