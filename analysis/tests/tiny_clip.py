"""Builds a tiny CLIP model in Immich's layout (docs/ANALYSIS.md), for the tests of content
search: no package ships CLIP's weights, so the tests make a model of the same shape whose
answers they can work out.

Its embeddings have four numbers: how red, how green and how blue an image is, and a constant.
The image encoder takes [1, 3, 32, 32] (OpenCLIP's preprocessing: bicubic, the shorter side
scaled and the centre cropped, CLIP's mean and standard deviation) and answers each channel's
mean with the constant; the text encoder sums the vectors of its words (a word-level
tokenizer in Hugging Face's format, with CLIP's start and end tokens and its padding), "red",
"crimson" and "scarlet" red, "grass" green, "sky" and "sea" blue, and any other word the
constant alone. So "crimson" finds the reddest photos, and "sea" the bluest.

    PYTHONPATH=analysis python -m tests.tiny_clip FOLDER
"""

import json
import os
import sys

import numpy
import onnx
from onnx import TensorProto, helper, numpy_helper
from tokenizers import Tokenizer, models, normalizers, pre_tokenizers, processors

SIDE = 32
CONTEXT = 16
DIMENSIONS = 4
CONSTANT = 0.05
MEAN = [0.48145466, 0.4578275, 0.40821073]
STD = [0.26862954, 0.26130258, 0.27577711]
WORDS = {
    "red": 0, "crimson": 0, "scarlet": 0, "green": 1, "grass": 1, "blue": 2, "sky": 2, "sea": 2,
}
FUNCTION_WORDS = ["a", "an", "the", "of", "photo", "picture", "in", "on"]
SPECIAL = ["<|startoftext|>", "<|endoftext|>", "[UNK]"]


def vocabulary():
    return {token: index for index, token in enumerate(SPECIAL + FUNCTION_WORDS + sorted(WORDS))}


def word_vectors(vocab):
    vectors = numpy.zeros((len(vocab), DIMENSIONS), dtype=numpy.float32)
    for token, index in vocab.items():
        if token in WORDS:
            vectors[index, WORDS[token]] = 1
    vectors[vocab["[UNK]"], 3] = 1
    return vectors


def save(graph, path):
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], producer_name="lightbox-tests")
    model.ir_version = 8
    onnx.checker.check_model(model)
    onnx.save(model, path)


def visual_graph():
    weights = numpy.zeros((3, DIMENSIONS), dtype=numpy.float32)
    weights[0, 0] = weights[1, 1] = weights[2, 2] = 1
    bias = numpy.array([0, 0, 0, CONSTANT], dtype=numpy.float32)
    return helper.make_graph(
        [
            helper.make_node("ReduceMean", ["image"], ["channels"], axes=[2, 3], keepdims=0),
            helper.make_node("MatMul", ["channels", "weights"], ["projected"]),
            helper.make_node("Add", ["projected", "bias"], ["embedding"]),
        ],
        "tiny-clip-visual",
        [helper.make_tensor_value_info("image", TensorProto.FLOAT, ["batch", 3, SIDE, SIDE])],
        [helper.make_tensor_value_info("embedding", TensorProto.FLOAT, ["batch", DIMENSIONS])],
        [numpy_helper.from_array(weights, "weights"), numpy_helper.from_array(bias, "bias")],
    )


def textual_graph(vocab):
    bias = numpy.array([0, 0, 0, CONSTANT], dtype=numpy.float32)
    return helper.make_graph(
        [
            helper.make_node("Gather", ["vectors", "text"], ["tokens"], axis=0),
            helper.make_node("ReduceSum", ["tokens", "axes"], ["summed"], keepdims=0),
            helper.make_node("Add", ["summed", "bias"], ["embedding"]),
        ],
        "tiny-clip-textual",
        [helper.make_tensor_value_info("text", TensorProto.INT32, ["batch", CONTEXT])],
        [helper.make_tensor_value_info("embedding", TensorProto.FLOAT, ["batch", DIMENSIONS])],
        [
            numpy_helper.from_array(word_vectors(vocab), "vectors"),
            numpy_helper.from_array(numpy.array([1], dtype=numpy.int64), "axes"),
            numpy_helper.from_array(bias, "bias"),
        ],
    )


def tokenizer(vocab):
    made = Tokenizer(models.WordLevel(vocab, unk_token="[UNK]"))
    made.normalizer = normalizers.Sequence([normalizers.NFC(), normalizers.Lowercase()])
    made.pre_tokenizer = pre_tokenizers.Whitespace()
    made.post_processor = processors.TemplateProcessing(
        single="<|startoftext|> $A <|endoftext|>",
        special_tokens=[("<|startoftext|>", vocab["<|startoftext|>"]), ("<|endoftext|>", vocab["<|endoftext|>"])],
    )
    return made


def build(folder):
    """Writes the model's files into `folder` (made if needed) and answers it."""
    vocab = vocabulary()
    os.makedirs(os.path.join(folder, "visual"), exist_ok=True)
    os.makedirs(os.path.join(folder, "textual"), exist_ok=True)
    config = {"embed_dim": DIMENSIONS, "vision_cfg": {"image_size": SIDE},
              "text_cfg": {"context_length": CONTEXT, "vocab_size": len(vocab)}}
    preprocess = {"size": [SIDE, SIDE], "mode": "RGB", "mean": MEAN, "std": STD, "interpolation": "bicubic",
                  "resize_mode": "shortest", "fill_color": 0}
    with open(os.path.join(folder, "config.json"), "w") as file:
        json.dump(config, file)
    with open(os.path.join(folder, "visual", "preprocess_cfg.json"), "w") as file:
        json.dump(preprocess, file)
    with open(os.path.join(folder, "textual", "tokenizer_config.json"), "w") as file:
        json.dump({"pad_token": "<|endoftext|>", "model_max_length": CONTEXT}, file)
    tokenizer(vocab).save(os.path.join(folder, "textual", "tokenizer.json"))
    save(visual_graph(), os.path.join(folder, "visual", "model.onnx"))
    save(textual_graph(vocab), os.path.join(folder, "textual", "model.onnx"))
    return folder


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: python -m tests.tiny_clip FOLDER")
    print(build(sys.argv[1]))
