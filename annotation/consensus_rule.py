"""The automatic consensus rule for two reviews of a question (plain Python, no Django).

Two ground truths *agree* when their MiniLM embeddings have a cosine of at least ``AGREE_COSINE`` and
they state the same key facts: the same set of numbers (dates included) and the same set of capitalised
names. The rule and its reasons are documented in docs/annotation.md.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from scoring.embeddings import get_encoder

# 0.90: our threshold (not from either paper) for "the two annotators wrote the same answer". Measured
# with MiniLM: a reordered paraphrase 0.993, "built by X in 1889" vs "X demolished it in 1889" 0.863
# (docs/annotation.md).
AGREE_COSINE = 0.90

# Words that are capitalised because they open a sentence, not because they name something.
_FUNCTION_WORDS = frozenset(
    [
        "a",
        "an",
        "and",
        "as",
        "at",
        "by",
        "for",
        "from",
        "he",
        "her",
        "his",
        "i",
        "in",
        "is",
        "it",
        "its",
        "of",
        "on",
        "or",
        "our",
        "she",
        "that",
        "the",
        "their",
        "there",
        "these",
        "they",
        "this",
        "those",
        "to",
        "was",
        "we",
        "were",
        "what",
        "when",
        "where",
        "which",
        "who",
        "why",
        "with",
        "yes",
        "no",
        "not",
    ]
)
_NUMBER = re.compile(r"\d+(?:[.,:/-]\d+)*")
_NAME = re.compile(r"\b[A-Z][\w'\u2019-]*")


def key_facts(text: str) -> tuple[frozenset[str], frozenset[str]]:
    """The numbers and dates (thousands separators dropped) and the capitalised names (case-folded,
    sentence-opening function words left out) that a text states."""
    numbers = frozenset(m.group(0).replace(",", "") for m in _NUMBER.finditer(text))
    names = frozenset(
        m.group(0).casefold() for m in _NAME.finditer(text) if m.group(0).casefold() not in _FUNCTION_WORDS
    )
    return numbers, names


def embed(texts: Sequence[str]) -> np.ndarray:
    """L2-normalised embeddings, one row per text, from the process's shared MiniLM (scoring.embeddings)."""
    return np.asarray(get_encoder().encode(list(texts)), dtype=np.float32)


def cosine(a: str, b: str) -> float:
    rows = embed([a, b])
    return float(np.dot(rows[0], rows[1]))


@dataclass(frozen=True)
class Agreement:
    agree: bool
    cosine: float | None
    numbers: tuple[list[str], list[str]] = field(default_factory=lambda: ([], []))
    names: tuple[list[str], list[str]] = field(default_factory=lambda: ([], []))

    def as_dict(self) -> dict[str, object]:
        return {
            "agree": self.agree,
            "cosine": self.cosine,
            "threshold": AGREE_COSINE,
            "numbers": list(self.numbers),
            "names": list(self.names),
        }


def _plain(text: str) -> str:
    """Case-folded, whitespace collapsed, closing punctuation dropped: equal plain texts need no encoder."""
    return " ".join(text.split()).casefold().rstrip(".!;")


def ground_truths_agree(a: str, b: str) -> Agreement:
    """Whether two ground truths agree under the rule; the embedding is computed only when the key facts
    match (a differing number or name already decides)."""
    numbers_a, names_a = key_facts(a)
    numbers_b, names_b = key_facts(b)
    numbers = (sorted(numbers_a), sorted(numbers_b))
    names = (sorted(names_a), sorted(names_b))
    if numbers_a != numbers_b or names_a != names_b or not a.strip() or not b.strip():
        return Agreement(False, None, numbers, names)
    value = 1.0 if _plain(a) == _plain(b) else cosine(a, b)
    return Agreement(value >= AGREE_COSINE, value, numbers, names)
