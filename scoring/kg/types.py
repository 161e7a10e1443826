"""The triplet type and the label normalisation every knowledge graph goes through.

The S3KG paper (Arumugam et al., ICML 2026, section 3.1) lower-cases and lemmatises entity and relation
labels after extraction. Here a label is normalised as follows, in this order:

1. underscores are read as spaces (the paper's authors' graphs write ``conventional_therapy``);
2. lower-cased;
3. runs of whitespace collapsed to one space, the ends stripped;
4. lemmatised word by word: a purely alphabetic word is replaced by its dictionary lemma from
   ``lemminflect`` (first lemma of the first part of speech found, in the order NOUN, VERB, AUX, ADJ,
   ADV, PROPN), a word lemminflect does not know or that carries digits or punctuation is kept as is.
   Without lemminflect installed, words are kept as they are.

Everything is deterministic and cached, so normalising the same label twice costs a dict lookup.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from functools import lru_cache
from typing import NamedTuple

_WHITESPACE = re.compile(r"\s+")
# Parts of speech tried in order when a word has lemmas under several (deterministic choice).
_POS_ORDER = ("NOUN", "VERB", "AUX", "ADJ", "ADV", "PROPN")


class Triplet(NamedTuple):
    """One (head, relation, tail) fact of a knowledge graph."""

    head: str
    relation: str
    tail: str


@lru_cache(maxsize=1)
def _lemminflect_available() -> bool:
    try:
        import lemminflect  # noqa: F401
    except ImportError:
        return False
    return True


@lru_cache(maxsize=131072)
def lemmatise_word(word: str) -> str:
    """The dictionary lemma of one lower-case word (the word itself when none is known)."""
    if not word.isalpha() or not _lemminflect_available():
        return word
    from lemminflect import getAllLemmas

    lemmas = getAllLemmas(word)
    for pos in _POS_ORDER:
        found = lemmas.get(pos)
        if found:
            return str(found[0])
    for pos in sorted(lemmas):
        if lemmas[pos]:
            return str(lemmas[pos][0])
    return word


def _clean(label: str) -> str:
    return _WHITESPACE.sub(" ", label.replace("_", " ").lower()).strip()


@lru_cache(maxsize=131072)
def _normalise_default(label: str) -> str:
    return " ".join(lemmatise_word(word) for word in _clean(label).split(" ") if word)


def normalise_label(label: str, lemmatise: Callable[[str], str] | None = None) -> str:
    """Lower-case, underscores as spaces, whitespace collapsed, lemmatised word by word.

    ``lemmatise`` replaces the per-word lemmatiser (for example spaCy's lemmas); by default lemminflect's.
    """
    if lemmatise is None:
        return _normalise_default(label)
    return " ".join(lemmatise(word) for word in _clean(label).split(" ") if word)


def normalise_triplets(raw: Iterable[Sequence[str]]) -> list[Triplet]:
    """Normalise every label; drop triplets with an empty label and repeated triplets (first kept).

    Raises ``ValueError`` for an item that is not three strings.
    """
    seen: set[Triplet] = set()
    out: list[Triplet] = []
    for item in raw:
        if isinstance(item, str) or len(item) != 3 or not all(isinstance(part, str) for part in item):
            raise ValueError(f"a triplet must be three strings, got {item!r}")
        triplet = Triplet(normalise_label(item[0]), normalise_label(item[1]), normalise_label(item[2]))
        if all(triplet) and triplet not in seen:
            seen.add(triplet)
            out.append(triplet)
    return out


def triplet_text(t: Sequence[str]) -> str:
    """The text a triplet is embedded as: ``"head relation tail"`` (labels joined by one space)."""
    return " ".join(t)
