"""Content search: CLIP's image and text encoders, from a folder the operator names.

No package ships CLIP's weights, so the service loads them from a folder laid out as Immich's
published models are (one model a folder, e.g. `ViT-B-32__openai`):

    config.json                    OpenCLIP's model config: embed_dim, text_cfg.context_length
    visual/model.onnx              the image encoder: image float32 [1, 3, S, S] -> [1, D]
    visual/preprocess_cfg.json     size, mean, std, interpolation, resize_mode (and fill_color)
    textual/model.onnx             the text encoder: text int [1, L] -> [1, D]
                                   (or input_ids and attention_mask, as M-CLIP's take)
    textual/tokenizer.json         the tokenizer, in Hugging Face's `tokenizers` format
    textual/tokenizer_config.json  its pad_token

An image is prepared as OpenCLIP prepares it (its `resize_mode`): its shorter side scaled to S
and the centre cropped ("shortest"), its longer side scaled to S and the rest filled
("longest"), or both scaled to S ("squash"), with the named interpolation; then scaled to 0 to 1
and normalised channel by channel with the mean and the standard deviation. Text is tokenized
with its spaces run together (and, where the config says `clean: canonicalize`, without
punctuation and lowercased), padded with the pad token and cut to the context's length.

Both encoders answer unit vectors, so that a dot product is the cosine a search ranks by.
Every file is bounded before it is read, and every number of the configs checked: a folder that
is not a model is refused at start, naming the file and what is wrong.
"""

import hashlib
import html
import json
import math
import os
import string

import numpy

# Bumped whenever what the encoders answer for the same model and input changes (the
# preprocessing, the cleaning of text), so that a library embeds again what an older revision
# answered.
MODEL_REVISION = 1
MAX_CONFIG = 1 << 20
MAX_TOKENIZER = 64 << 20
MAX_MODEL = 8 << 30
MAX_TEXT = 1000
MAX_DIMENSIONS = 4096
INTERPOLATIONS = ("bicubic", "bilinear", "nearest", "lanczos", "box", "hamming")
RESIZE_MODES = ("shortest", "longest", "squash")


class ModelFolderError(Exception):
    """A folder that is not a CLIP model the service can load, with the file and what is wrong."""


def file_size(path):
    try:
        return os.stat(path).st_size
    except OSError as error:
        raise ModelFolderError(f"{path}: cannot be read ({error.strerror})") from None


def read_json(path, most):
    size = file_size(path)
    if size > most:
        raise ModelFolderError(f"{path}: {size} bytes, more than the {most} a config may be")
    try:
        with open(path, "rb") as file:
            document = json.loads(file.read(most + 1))
    except (ValueError, RecursionError):
        raise ModelFolderError(f"{path}: not JSON") from None
    if not isinstance(document, dict):
        raise ModelFolderError(f"{path}: not a JSON object")
    return document


def whole(document, key, path, low, high, default=None):
    value = document.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise ModelFolderError(f"{path}: {key} must be a whole number from {low} to {high}, not {value!r}")
    return value


def numbers(document, key, path, count, positive=False):
    value = document.get(key)
    ok = isinstance(value, list) and len(value) == count and all(
        isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v) and (v > 0 or not positive)
        for v in value)
    if not ok:
        kind = "positive " if positive else ""
        raise ModelFolderError(f"{path}: {key} must be {count} finite {kind}numbers, not {value!r}")
    return numpy.array(value, dtype=numpy.float32)


def digest(paths):
    """A SHA-256 of the model's files, read a MiB at a time: another export, other weights or
    another tokenizer is another model."""
    hasher = hashlib.sha256()
    for path in paths:
        hasher.update(os.path.basename(path).encode() + b"\0")
        with open(path, "rb") as file:
            while chunk := file.read(1 << 20):
                hasher.update(chunk)
    return hasher.hexdigest()


def model_file(path):
    size = file_size(path)
    if not 0 < size <= MAX_MODEL:
        raise ModelFolderError(f"{path}: {size} bytes, not an ONNX model of at most {MAX_MODEL}")
    return path


def session(path, threads):
    import onnxruntime

    options = onnxruntime.SessionOptions()
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = 1
    try:
        return onnxruntime.InferenceSession(path, sess_options=options, providers=["CPUExecutionProvider"])
    except Exception as error:  # ONNX Runtime says what is wrong with the graph
        raise ModelFolderError(f"{path}: not a model ONNX Runtime runs ({error})") from None


def fixed(dimension):
    """A dimension of an input or an output that the graph fixes, None where it is symbolic."""
    return dimension if isinstance(dimension, int) and dimension > 0 else None


class ClipModel:
    """A CLIP model's two encoders, loaded once and shared: ONNX Runtime runs a session from
    several threads at once, each call with `threads` of its own."""

    def __init__(self, folder, threads=1):
        from tokenizers import Tokenizer

        self.folder = os.path.abspath(folder)
        if not os.path.isdir(self.folder):
            raise ModelFolderError(f"{self.folder}: no such folder (a CLIP model in Immich's layout)")
        config_path = os.path.join(self.folder, "config.json")
        config = read_json(config_path, MAX_CONFIG)
        self.dimensions = whole(config, "embed_dim", config_path, 1, MAX_DIMENSIONS)
        text_cfg = config.get("text_cfg", {})
        if not isinstance(text_cfg, dict):
            raise ModelFolderError(f"{config_path}: text_cfg must be an object")
        self.context = whole(text_cfg, "context_length", config_path, 1, 1024, default=77)
        kwargs = text_cfg.get("tokenizer_kwargs") or {}
        self.canonicalize = isinstance(kwargs, dict) and kwargs.get("clean") == "canonicalize"

        visual = os.path.join(self.folder, "visual")
        preprocess_path = os.path.join(visual, "preprocess_cfg.json")
        preprocess = read_json(preprocess_path, MAX_CONFIG)
        size = preprocess.get("size")
        if isinstance(size, list) and len(size) == 2 and size[0] == size[1]:
            size = size[0]
        self.side = whole({"size": size}, "size", preprocess_path, 16, 1024)
        self.mean = numbers(preprocess, "mean", preprocess_path, 3)
        self.std = numbers(preprocess, "std", preprocess_path, 3, positive=True)
        self.interpolation = preprocess.get("interpolation", "bicubic")
        if self.interpolation not in INTERPOLATIONS:
            raise ModelFolderError(
                f"{preprocess_path}: interpolation {self.interpolation!r} is none of {', '.join(INTERPOLATIONS)}")
        self.resize_mode = preprocess.get("resize_mode", "shortest")  # OpenCLIP's default for older configs
        if self.resize_mode not in RESIZE_MODES:
            raise ModelFolderError(
                f"{preprocess_path}: resize_mode {self.resize_mode!r} is none of {', '.join(RESIZE_MODES)}")
        fill = preprocess.get("fill_color", 0)
        if isinstance(fill, bool) or not isinstance(fill, int) or not 0 <= fill <= 255:
            raise ModelFolderError(f"{preprocess_path}: fill_color must be a whole number from 0 to 255")
        self.fill = fill

        textual = os.path.join(self.folder, "textual")
        tokenizer_path = os.path.join(textual, "tokenizer.json")
        tokenizer_config_path = os.path.join(textual, "tokenizer_config.json")
        tokenizer_config = read_json(tokenizer_config_path, MAX_CONFIG)
        pad = tokenizer_config.get("pad_token", "<|endoftext|>")
        if isinstance(pad, dict):
            pad = pad.get("content")
        if not isinstance(pad, str) or not 0 < len(pad) <= 100:
            raise ModelFolderError(f"{tokenizer_config_path}: pad_token must name a token")
        tokenizer_size = file_size(tokenizer_path)
        if tokenizer_size > MAX_TOKENIZER:
            raise ModelFolderError(f"{tokenizer_path}: {tokenizer_size} bytes, more than {MAX_TOKENIZER}")
        try:
            self.tokenizer = Tokenizer.from_file(tokenizer_path)
        except Exception as error:  # the tokenizers library says what is wrong with the file
            raise ModelFolderError(f"{tokenizer_path}: not a tokenizer ({error})") from None
        pad_id = self.tokenizer.token_to_id(pad)
        if pad_id is None:
            raise ModelFolderError(f"{tokenizer_path}: has no pad token {pad!r} ({tokenizer_config_path} names it)")
        self.tokenizer.enable_padding(length=self.context, pad_token=pad, pad_id=pad_id)
        self.tokenizer.enable_truncation(max_length=self.context)

        visual_path = model_file(os.path.join(visual, "model.onnx"))
        textual_path = model_file(os.path.join(textual, "model.onnx"))
        self.visual = session(visual_path, threads)
        self.textual = session(textual_path, threads)
        self.check_graphs(visual_path, textual_path)
        files = [config_path, preprocess_path, visual_path, tokenizer_path, tokenizer_config_path, textual_path]
        name = "".join(c if c.isascii() and (c.isalnum() or c in "-_.") else "-" for c in os.path.basename(self.folder))
        self.name = name[:80] or "clip"
        self.identifier = f"clip-{self.name}-{digest(files)[:16]}-r{MODEL_REVISION}"

    def check_graphs(self, visual_path, textual_path):
        inputs = self.visual.get_inputs()
        if len(inputs) != 1 or inputs[0].type != "tensor(float)" or len(inputs[0].shape) != 4:
            raise ModelFolderError(f"{visual_path}: the image encoder must take one float tensor [1, 3, S, S]")
        shape = [fixed(d) for d in inputs[0].shape]
        if shape[1] not in (None, 3) or any(s not in (None, self.side) for s in shape[2:]):
            raise ModelFolderError(
                f"{visual_path}: takes {inputs[0].shape}, not [1, 3, {self.side}, {self.side}] "
                "as preprocess_cfg.json says")
        self.visual_input = inputs[0].name
        names = {i.name: i for i in self.textual.get_inputs()}
        self.text_input = "text" if "text" in names else "input_ids" if "input_ids" in names else None
        if self.text_input is None or not set(names) <= {"text", "input_ids", "attention_mask"}:
            raise ModelFolderError(
                f"{textual_path}: the text encoder must take text (or input_ids and attention_mask), "
                f"not {', '.join(names)}")
        self.text_types = {}
        for name, tensor in names.items():
            if tensor.type not in ("tensor(int32)", "tensor(int64)") or len(tensor.shape) != 2:
                raise ModelFolderError(f"{textual_path}: {name} must be a tensor of integers [1, L]")
            if fixed(tensor.shape[1]) not in (None, self.context):
                raise ModelFolderError(
                    f"{textual_path}: takes {tensor.shape[1]} tokens, config.json's context_length is {self.context}")
            self.text_types[name] = numpy.int32 if tensor.type == "tensor(int32)" else numpy.int64
        for path, graph in ((visual_path, self.visual), (textual_path, self.textual)):
            output = graph.get_outputs()[0]
            if fixed(output.shape[-1] if output.shape else None) not in (None, self.dimensions):
                raise ModelFolderError(
                    f"{path}: answers {output.shape}, not the {self.dimensions} numbers config.json's embed_dim says")

    def describe(self):
        return {"id": self.identifier, "name": self.name, "dimensions": self.dimensions, "imageSide": self.side,
                "contextLength": self.context, "licence": "the operator's model: see its own licence"}

    def prepare(self, pixels):
        """An RGB image (rows of 8-bit pixels) as the image encoder takes it: [1, 3, S, S]."""
        from PIL import Image

        image = Image.fromarray(pixels, "RGB")
        resample = getattr(Image.Resampling, self.interpolation.upper())
        side = self.side
        width, height = image.size
        if self.resize_mode == "squash":
            image = image.resize((side, side), resample=resample)
        elif self.resize_mode == "shortest":
            scale = side / min(width, height)
            scaled = (max(side, round(width * scale)), max(side, round(height * scale)))
            image = image.resize(scaled, resample=resample)
            left = int(round((scaled[0] - side) / 2.0))
            top = int(round((scaled[1] - side) / 2.0))
            image = image.crop((left, top, left + side, top + side))
        else:
            scale = side / max(width, height)
            scaled = (max(1, round(width * scale)), max(1, round(height * scale)))
            canvas = Image.new("RGB", (side, side), (self.fill,) * 3)
            canvas.paste(image.resize(scaled, resample=resample), ((side - scaled[0]) // 2, (side - scaled[1]) // 2))
            image = canvas
        array = numpy.asarray(image, dtype=numpy.float32) / 255.0
        array = (array - self.mean) / self.std
        return numpy.ascontiguousarray(array.transpose(2, 0, 1)[None])

    def unit(self, answer, what):
        vector = numpy.asarray(answer, dtype=numpy.float64).reshape(-1)
        if vector.size != self.dimensions or not numpy.all(numpy.isfinite(vector)):
            raise ValueError(f"the {what} encoder answered {vector.size} numbers, not {self.dimensions} finite ones")
        norm = float(numpy.linalg.norm(vector))
        if norm == 0:
            raise ValueError(f"the {what} encoder answered a vector of zeros")
        return [round(float(v), 7) for v in vector / norm]

    def embed_image(self, pixels):
        answer = self.visual.run(None, {self.visual_input: self.prepare(pixels)})[0]
        return self.unit(answer[0] if numpy.ndim(answer) > 1 else answer, "image")

    def clean(self, text):
        text = " ".join(html.unescape(html.unescape(text)).split())
        if self.canonicalize:
            text = text.translate(str.maketrans("", "", string.punctuation)).lower()
        return text

    def embed_text(self, text):
        encoding = self.tokenizer.encode(self.clean(text))
        feed = {self.text_input: numpy.array([encoding.ids], dtype=self.text_types[self.text_input])}
        if "attention_mask" in self.text_types:
            feed["attention_mask"] = numpy.array([encoding.attention_mask], dtype=self.text_types["attention_mask"])
        answer = self.textual.run(None, feed)[0]
        return self.unit(answer[0] if numpy.ndim(answer) > 1 else answer, "text")
