"""Did an answer follow the context, revert to prior knowledge, or neither?

The rule (documented in the README): take the words that tell the two versions of the fact apart.
*Divergent markers* are the words of the divergent fact that the original lacks; *original markers* the
words of the original that the divergent fact lacks. The two versions come from the question's ground
truth and ``original_answer`` when the question has one, otherwise from the context's alterations whose
divergent markers appear in the ground truth. An answer containing divergent markers and no original
marker *followed the context*; original markers and no divergent marker, *reverted to prior knowledge*;
anything else (both, or neither) is *neither*. Words are compared lower-cased, without punctuation and
stop words; numbers are words ("1949", "7,779" → "7779")."""

import re
from collections.abc import Iterable, Sequence
from typing import Literal

ErrorClass = Literal["followed_context", "reverted_to_prior", "neither"]
ERROR_CLASSES: tuple[ErrorClass, ...] = ("followed_context", "reverted_to_prior", "neither")

STOP_WORDS = frozenset(
    """a an the of in on at to for by with from and or but is was were are be been being as that this
    these those it its his her their there which who whom whose what when where why how did does do
    has have had not no into than then so such also""".split()
)
_WORD = re.compile(r"[^\W_]+(?:[.,'][^\W_]+)*", re.UNICODE)


def words(text: str) -> set[str]:
    out = set()
    for token in _WORD.findall(text.lower()):
        token = token.replace(",", "").replace("'", "")
        # "7.5" keeps its point; "U.S." loses its points.
        token = token.rstrip(".") if token.replace(".", "").isdigit() else token.replace(".", "")
        if token and token not in STOP_WORDS:
            out.add(token)
    return out


def markers(divergent: str, original: str) -> tuple[set[str], set[str]]:
    d, o = words(divergent), words(original)
    return d - o, o - d


def fact_markers(
    *, ground_truth: str, original_answer: str, alterations: Sequence[tuple[str, str]]
) -> tuple[set[str], set[str]]:
    """(divergent markers, original markers) for a question; ``alterations`` are (original, divergent)."""
    if original_answer.strip():
        return markers(ground_truth, original_answer)
    truth = words(ground_truth)
    divergent: set[str] = set()
    original: set[str] = set()
    for orig, div in alterations:
        d, o = markers(div, orig)
        if d & truth:
            divergent |= d
            original |= o
    return divergent, original


def classify_answer(answer: str, divergent_markers: Iterable[str], original_markers: Iterable[str]) -> ErrorClass:
    said = words(answer)
    follows = bool(said & set(divergent_markers))
    reverts = bool(said & set(original_markers))
    if follows and not reverts:
        return "followed_context"
    if reverts and not follows:
        return "reverted_to_prior"
    return "neither"
