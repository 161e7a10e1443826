"""Extraction quality against hand-annotated triplets: precision, recall and the kinds of error.

The gold set and its guideline are in ``data/kg_gold/`` (``GUIDELINE.md`` states the matching rules this
module implements). Both sides are compared as *keys*: ``normalise_label`` (lower case, lemmatised), then
hyphens read as spaces and punctuation-only words dropped, so "flat-screen" and "flat - screen" compare equal.

Matching, per sentence, one to one, greedily: strict matches (identical keys) first, then relaxed ones (each
label matches when the two share their last word or overlap by at least half of their word sets). What is
left unpaired is classified: ``reversed``, ``wrong_relation``, ``wrong_entity``, ``spurious`` (predictions)
and ``missing`` (gold).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field

from scoring.kg.types import Triplet, normalise_label

_PUNCT_WORD = re.compile(r"^\W+$")
# A relaxed label match needs at least this share of common words (Jaccard); the guideline's "half".
RELAXED_JACCARD = 0.5
ERROR_TYPES = ("reversed", "wrong_relation", "wrong_entity", "spurious", "missing")


def label_key(label: str) -> tuple[str, ...]:
    """The words a label is compared by: normalised, hyphens as spaces, punctuation-only words dropped."""
    words = normalise_label(label).replace("-", " ").split()
    return tuple(w for w in words if not _PUNCT_WORD.match(w))


Key = tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...]]


def triplet_key(t: Sequence[str]) -> Key:
    return (label_key(t[0]), label_key(t[1]), label_key(t[2]))


def _relation_words(words: tuple[str, ...]) -> tuple[str, ...]:
    rest = tuple(w for w in words if w != "be")
    return rest or words


def labels_match(a: tuple[str, ...], b: tuple[str, ...], *, relation: bool = False) -> bool:
    """Relaxed match of two label keys: same last word, or word sets overlapping by at least half."""
    if relation:
        a, b = _relation_words(a), _relation_words(b)
    if not a or not b:
        return a == b
    if a[-1] == b[-1]:
        return True
    sa, sb = set(a), set(b)
    return len(sa & sb) / len(sa | sb) >= RELAXED_JACCARD


def _relaxed(p: Key, g: Key) -> bool:
    return labels_match(p[0], g[0]) and labels_match(p[1], g[1], relation=True) and labels_match(p[2], g[2])


@dataclass
class SentenceMatch:
    """The pairing of one sentence's predictions with its gold triplets."""

    strict: int = 0
    relaxed: int = 0  # strict matches included
    n_pred: int = 0
    n_gold: int = 0
    errors: Counter[str] = field(default_factory=Counter)


def _classify_pred(p: Key, golds: list[Key]) -> str:
    for g in golds:
        if labels_match(p[0], g[2]) and labels_match(p[2], g[0]) and labels_match(p[1], g[1], relation=True):
            return "reversed"
    for g in golds:
        if labels_match(p[0], g[0]) and labels_match(p[2], g[2]):
            return "wrong_relation"
    for g in golds:
        if labels_match(p[1], g[1], relation=True) and (labels_match(p[0], g[0]) or labels_match(p[2], g[2])):
            return "wrong_entity"
    return "spurious"


def match_sentence(predicted: Sequence[Sequence[str]], gold: Sequence[Sequence[str]]) -> SentenceMatch:
    """Pair predictions with gold triplets one to one (strict first, then relaxed) and classify the rest.

    A prediction left over is ``reversed`` / ``wrong_relation`` / ``wrong_entity`` when it resembles a gold
    triplet that is itself left over, else ``spurious``; every gold triplet left over that no leftover
    prediction resembles counts as ``missing``.
    """
    preds = list(dict.fromkeys(triplet_key(t) for t in predicted))
    golds = list(dict.fromkeys(triplet_key(t) for t in gold))
    out = SentenceMatch(n_pred=len(preds), n_gold=len(golds))
    free_p, free_g = list(preds), list(golds)
    for p in list(free_p):
        if p in free_g:
            free_p.remove(p)
            free_g.remove(p)
            out.strict += 1
    out.relaxed = out.strict
    for p in list(free_p):
        for g in free_g:
            if _relaxed(p, g):
                free_p.remove(p)
                free_g.remove(g)
                out.relaxed += 1
                break
    explained: set[Key] = set()
    for p in free_p:
        kind = _classify_pred(p, free_g)
        out.errors[kind] += 1
        if kind != "spurious":
            explained.update(g for g in free_g if _resembles(p, g))
    missing = sum(1 for g in free_g if g not in explained)
    if missing:
        out.errors["missing"] += missing
    return out


def _resembles(p: Key, g: Key) -> bool:
    return (labels_match(p[0], g[0]) or labels_match(p[0], g[2])) and (
        labels_match(p[2], g[2]) or labels_match(p[2], g[0]) or labels_match(p[1], g[1], relation=True)
    )


@dataclass
class QualityReport:
    """Micro-averaged precision and recall over a gold set, strict and relaxed, with error counts."""

    n_sentences: int = 0
    n_pred: int = 0
    n_gold: int = 0
    strict: int = 0
    relaxed: int = 0
    errors: Counter[str] = field(default_factory=Counter)
    empty_sentences: int = 0

    def add(self, m: SentenceMatch) -> None:
        self.n_sentences += 1
        self.n_pred += m.n_pred
        self.n_gold += m.n_gold
        self.strict += m.strict
        self.relaxed += m.relaxed
        self.errors.update(m.errors)
        self.empty_sentences += int(m.n_pred == 0)

    @staticmethod
    def _ratio(a: int, b: int) -> float:
        return a / b if b else 0.0

    def figures(self) -> dict[str, float | int | dict[str, int]]:
        p_s, r_s = self._ratio(self.strict, self.n_pred), self._ratio(self.strict, self.n_gold)
        p_r, r_r = self._ratio(self.relaxed, self.n_pred), self._ratio(self.relaxed, self.n_gold)
        return {
            "sentences": self.n_sentences,
            "predicted": self.n_pred,
            "gold": self.n_gold,
            "strict_precision": p_s,
            "strict_recall": r_s,
            "strict_f1": _f1(p_s, r_s),
            "relaxed_precision": p_r,
            "relaxed_recall": r_r,
            "relaxed_f1": _f1(p_r, r_r),
            "empty_sentences": self.empty_sentences,
            "errors": {kind: self.errors.get(kind, 0) for kind in ERROR_TYPES},
        }


def _f1(p: float, r: float) -> float:
    return 0.0 if p + r == 0 else 2 * p * r / (p + r)


def evaluate(predictions: Sequence[Sequence[Triplet]], gold: Sequence[Sequence[Sequence[str]]]) -> QualityReport:
    """Quality of one extractor's predictions over a gold set (both lists in sentence order)."""
    if len(predictions) != len(gold):
        raise ValueError(f"{len(predictions)} predictions for {len(gold)} gold sentences")
    report = QualityReport()
    for pred, g in zip(predictions, gold, strict=True):
        report.add(match_sentence(pred, g))
    return report
