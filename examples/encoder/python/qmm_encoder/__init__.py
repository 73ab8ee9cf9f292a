"""Sentence embeddings with qmm-encode's engine (examples/encoder), qmm's
example of an inference engine.

    >>> import qmm_encoder
    >>> model = qmm_encoder.load("minilm.qmmw")
    >>> vectors = model.embed(["A man is eating food.", "Someone eats a meal."])
    >>> vectors.shape, float(vectors[0] @ vectors[1]) > 0.5
    ((2, 384), True)

The weight file (examples/encoder/FORMAT.md, written by
examples/encoder/convert.py) holds the model, its configuration and its
WordPiece vocabulary; the tokenizer is qmm_encoder.tokenizer's. An embedding
depends on its own sentence alone (no padding), and has the same bits on every
kernel, thread count and CPU. Calls release the GIL; one encoder runs one
call at a time, on qmm's thread count (qmm.set_num_threads).

activations: how each weight product's input is quantized to uint8, as ONNX's
DynamicQuantizeLinear does: "per-token" (the default: one scale and zero point
per token, within cosine 0.997 of the float all-MiniLM-L6-v2 on
examples/encoder/sentences.tsv) or "per-sequence" (exactly ONNX Runtime's
quantize_dynamic graph run on one sentence, within 0.987).
"""
import os

import numpy as np
import qmm

from ._engine import Encoder as _Engine
from .tokenizer import WordPiece

__version__ = "0.2.0"


class Encoder:
    """A loaded model: embed(sentences) -> float32 [len(sentences), hidden]."""

    def __init__(self, path, activations="per-token"):
        self._engine = _Engine(os.fspath(path), activations=activations)
        self.config = self._engine.config
        vocab = self._engine.vocab
        if vocab is None:
            raise ValueError("qmm_encoder: %s has no vocabulary to tokenize with" % path)
        self.tokenizer = WordPiece.from_config(self.config, vocab.decode("utf-8").split("\n"))

    def tokenize(self, sentence):
        """The token ids the model sees: [CLS] pieces [SEP], truncated."""
        return self.tokenizer.encode(sentence)

    def embed_ids(self, sequences, hidden=False):
        """Embeddings of token-id lists (or, with hidden=True, the last hidden
        state: one row per token, the sequences' tokens in order)."""
        sequences = [np.asarray(s, dtype=np.int64).ravel() for s in sequences]
        offsets = np.zeros(len(sequences) + 1, dtype=np.intp)
        np.cumsum([len(s) for s in sequences], out=offsets[1:])
        ids = np.concatenate(sequences) if sequences else np.zeros(0, np.int64)
        if ids.size and (ids.min() < 0 or ids.max() >= self.config["vocab"]):
            raise ValueError("qmm_encoder: token ids must be in [0, %d)" % self.config["vocab"])
        return self._engine.embed_ids(ids.astype(np.int32), offsets, hidden=hidden,
                                      threads=qmm.get_num_threads())

    def embed(self, sentences):
        """float32 [len(sentences), hidden] for a list of strings (one string:
        a vector of hidden floats)."""
        if isinstance(sentences, str):
            return self.embed([sentences])[0]
        return self.embed_ids([self.tokenize(s) for s in sentences])


def load(path, activations="per-token"):
    """The model in a qmm-encode weight file."""
    return Encoder(path, activations)
