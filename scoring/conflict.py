"""Knowledge conflict, per model and item, in plain Python (no Django).

A divergent context only tests context-following where the model held the original fact to begin with: a
model that never knew it "follows the context" for free. So:

1. ``classify_prior``: the closed-book answer (condition ``none``) against the item's two versions of the fact
   (``scoring.error_classes.fact_markers``) says whether the model *knows the original* fact, *does not know*
   (abstains, says nothing), or *believes something else*; ``unverified`` where the item's facts give no marker
   on one side, or there is no closed-book answer.
2. ``context_following``: the share of answers that follow the context, over all items and over the items
   where the conflict exists (the model knew the original).
3. ``memorisation_ratio``: ``M_R = p_o / (p_o + p_s)`` (Longpre et al. 2021).
4. ``context_preference_by_kind`` / ``context_preference_by_distance``: among the answers that take a side,
   the share that take the context's, by kind of alteration (number, date, name, other) and, for numbers and
   dates, by how far the divergent value lies from the real one (after ClashEval, Wu et al. 2024).

Every figure comes with a bootstrap interval over items; rules and their limits: docs/conflict_and_judges.md.
"""

from __future__ import annotations

import itertools
import math
import re
from collections import Counter
from collections.abc import Callable, Hashable, Iterable, Sequence
from dataclasses import dataclass
from datetime import date
from typing import Literal

import numpy as np

from scoring.error_classes import ErrorClass, classify_answer, fact_markers, markers, words
from scoring.stats import Estimate, bootstrap_ci, bootstrap_statistic

PriorClass = Literal["knows_original", "does_not_know", "believes_other", "unverified"]
PRIOR_CLASSES: tuple[PriorClass, ...] = ("knows_original", "does_not_know", "believes_other", "unverified")
AlterationKind = Literal["number", "date", "name", "other"]
ALTERATION_KINDS: tuple[AlterationKind, ...] = ("number", "date", "name", "other")

# Phrases that mark a closed-book answer as an abstention (matched lower-cased, apostrophes straightened).
ABSTENTION_PATTERNS: tuple[str, ...] = (
    r"\bi (?:do not|don't|dont) know\b",
    r"\b(?:not|never) sure\b",
    r"\bno idea\b",
    r"\bunknown\b",
    r"\b(?:cannot|can't|cant|unable to|could not|couldn't) (?:answer|say|tell|determine|know|find|be determined)\b",
    r"\b(?:no|not enough|insufficient) (?:information|data|context)\b",
    r"\bno (?:answer|record)\b",
    r"^\s*n/?a\.?\s*$",
)
_ABSTENTION = re.compile("|".join(ABSTENTION_PATTERNS))


@dataclass(frozen=True)
class ItemFacts:
    """What an item says about its fact: the ground truth (the divergent answer), the real answer when the item
    carries one (``original_answer``: DKD's optional field, ConflictNQ's ``real_answer``, ConflictQA's
    ``memory_answer``), and its context's alterations as ``(original, divergent)`` pairs."""

    ground_truth: str
    original_answer: str = ""
    alterations: tuple[tuple[str, str], ...] = ()

    def markers(self) -> tuple[frozenset[str], frozenset[str]]:
        """(divergent markers, original markers), by ``scoring.error_classes.fact_markers``."""
        d, o = fact_markers(
            ground_truth=self.ground_truth, original_answer=self.original_answer, alterations=self.alterations
        )
        return frozenset(d), frozenset(o)

    def altered_pairs(self) -> list[tuple[str, str]]:
        """The ``(original, divergent)`` pairs this item's answer turns on: the alterations whose divergent
        markers appear in the ground truth (the rule of ``fact_markers``), else ``(original_answer,
        ground_truth)`` when the item has an original answer, else none."""
        truth = words(self.ground_truth)
        relevant = [(o, d) for o, d in self.alterations if markers(d, o)[0] & truth]
        if relevant:
            return relevant
        return [(self.original_answer, self.ground_truth)] if self.original_answer.strip() else []


def is_abstention(text: str) -> bool:
    """True when an answer says nothing: empty, only stop words and punctuation, or an abstention phrase
    (``ABSTENTION_PATTERNS``: "I don't know", "unknown", "cannot answer", "no information", ...)."""
    if not words(text):
        return True
    return bool(_ABSTENTION.search(text.lower().replace("\u2019", "'")))


def classify_prior(
    closed_book_answer: str | None, divergent_markers: Iterable[str], original_markers: Iterable[str]
) -> PriorClass:
    """What a model believes before it sees the context, from its closed-book answer:

    - ``unverified``: no closed-book answer, or one of the two marker sets is empty (the item's two versions of
      the fact cannot be told apart by words: then neither the prior nor the answer can be classed);
    - ``knows_original``: the answer holds original markers and no divergent marker (``classify_answer`` says
      ``reverted_to_prior``): the conflict exists;
    - ``does_not_know``: no marker of either side, and the answer abstains or is empty (``is_abstention``);
    - ``believes_other``: anything else: another answer with no marker, the divergent fact itself (the model
      already holds the substituted value, so there is no conflict), or both versions at once (a hedge)."""
    divergent, original = set(divergent_markers), set(original_markers)
    if closed_book_answer is None or not divergent or not original:
        return "unverified"
    verdict = classify_answer(closed_book_answer, divergent, original)
    if verdict == "reverted_to_prior":
        return "knows_original"
    said = words(closed_book_answer)
    if verdict == "neither" and not (said & divergent) and is_abstention(closed_book_answer):
        return "does_not_know"
    return "believes_other"


# --------------------------------------------------------------------------------------------------------------
# Kind of an alteration and the distance between its two values.

# English month names and abbreviations, written out (``calendar`` would follow the process locale).
_MONTH_NAMES = "january february march april may june july august september october november december".split()
_MONTHS = {name: i for i, name in enumerate(_MONTH_NAMES, start=1)} | {
    name[:3]: i for i, name in enumerate(_MONTH_NAMES, start=1)
}
_MONTHS["sept"] = 9
_MONTH = "(" + "|".join(sorted(_MONTHS, key=len, reverse=True)) + r")\.?"
_ISO_DATE = re.compile(r"\b(\d{4})-(\d{1,2})-(\d{1,2})\b")
_DAY_MONTH_YEAR = re.compile(r"\b(\d{1,2})(?:st|nd|rd|th)?(?: of)? " + _MONTH + r",? (\d{3,4})\b")
_MONTH_DAY_YEAR = re.compile(r"\b" + _MONTH + r" (\d{1,2})(?:st|nd|rd|th)?,? (\d{3,4})\b")
_MONTH_YEAR = re.compile(r"\b" + _MONTH + r",? (\d{3,4})\b")
_YEAR_ONLY = re.compile(r"^(?:(?:in|the year|year) )?(ad )?(\d{1,4})(?: (ad|ce|bc|bce))?$")
_DIGITS = re.compile(
    r"(?<![\w.])([-+]?\d[\d,]*(?:\.\d+)?)(?:[a-z]{0,2}\s*(hundred|thousand|million|billion|trillion)\b)?"
)
_NUMBER_WORDS = {
    w: i
    for i, w in enumerate(
        "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen "
        "seventeen eighteen nineteen".split()
    )
} | {w: 10 * i for i, w in enumerate("twenty thirty forty fifty sixty seventy eighty ninety".split(), start=2)}
_SCALES = {"hundred": 1e2, "thousand": 1e3, "million": 1e6, "billion": 1e9, "trillion": 1e12}
_NAME_CONNECTORS = frozenset("of de da di du del della der den van von la le les y bin al and the & st st.".split())


@dataclass(frozen=True)
class DateValue:
    """A date as far as the text gives it: the year (negative for BC), and the month and day when given."""

    year: int
    month: int | None = None
    day: int | None = None


def parse_date(text: str) -> DateValue | None:
    """A date in ``text``: ISO ``1949-03-12``; ``12 March 1949``, ``March 12, 1949``, ``March 1949``
    (month names in full or abbreviated, any case); or a text that is nothing but a year of three or four digits
    (``1949``, ``in 1949``) or a year with its era (``44 BC``, ``AD 79``). None otherwise: a year inside a longer
    phrase is not read as a date."""
    t = " ".join(text.lower().replace(",", ", ").split()).strip(" .")
    if m := _ISO_DATE.search(t):
        return _checked(int(m[1]), int(m[2]), int(m[3]))
    if m := _DAY_MONTH_YEAR.search(t):
        return _checked(int(m[3]), _MONTHS[m[2]], int(m[1]))
    if m := _MONTH_DAY_YEAR.search(t):
        return _checked(int(m[3]), _MONTHS[m[1]], int(m[2]))
    if m := _MONTH_YEAR.search(t):
        return DateValue(int(m[2]), _MONTHS[m[1]])
    if (m := _YEAR_ONLY.match(t.replace(",", "").replace(".", ""))) and (m[1] or m[3] or len(m[2]) >= 3):
        year = int(m[2])
        return DateValue(-year if m[3] in ("bc", "bce") else year)
    return None


def _checked(year: int, month: int, day: int) -> DateValue | None:
    try:
        date(max(year, 1), month, day)
    except ValueError:
        return None
    return DateValue(year, month, day)


def parse_number(text: str) -> float | None:
    """The one number in ``text``: digits (``7,779``, ``-3.5``, ``12%``, ``3rd``), optionally scaled by a
    following ``hundred`` / ``thousand`` / ``million`` / ``billion`` / ``trillion``, or number words (``three``,
    ``twenty-five``, ``two hundred and fifty``, ``a million``). None when the text holds no number or more than
    one (a range, a list, a date with a number beside it)."""
    t = text.lower().replace("\u2212", "-")
    values = []
    for m in _DIGITS.finditer(t):
        value = float(m[1].replace(",", ""))
        values.append(value * _SCALES[m[2]] if m[2] else value)
    values += _worded_numbers(re.findall(r"[a-z]+", _DIGITS.sub(" # ", t).replace("-", " ")))
    return values[0] if len(values) == 1 else None


def _worded_numbers(tokens: Sequence[str]) -> list[float]:
    """Values of the runs of number words among ``tokens``: "two hundred and fifty" is one run (250), "three
    thousand two hundred" another (3200); a scale word alone counts as one of it ("a million": 1e6)."""
    values: list[float] = []
    total = current = 0.0
    running = False
    for i, word in enumerate(tokens):
        if word in _NUMBER_WORDS:
            current += _NUMBER_WORDS[word]
        elif word == "hundred":
            current = (current or 1.0) * 100.0
        elif word in _SCALES:
            total += (current or 1.0) * _SCALES[word]
            current = 0.0
        elif word == "and" and running and i + 1 < len(tokens) and tokens[i + 1] in _NUMBER_WORDS:
            continue
        else:
            if running:
                values.append(total + current)
            total = current = 0.0
            running = False
            continue
        running = True
    if running:
        values.append(total + current)
    return values


def is_name(text: str) -> bool:
    """A proper name: no digits, and every word capitalised (initials and hyphenated parts allowed) except the
    usual connectors (of, de, van, von, la, and, the, ...), the first word among the capitalised ones."""
    tokens = re.findall(r"[^\s,;]+", text.strip().strip("."))
    if not tokens or any(ch.isdigit() for ch in text):
        return False
    if tokens[0].lower() in _NAME_CONNECTORS and tokens[0].lower() != "the":
        return False
    capitalised = 0
    for token in tokens:
        if token.lower() in _NAME_CONNECTORS:
            continue
        parts = [p for p in token.strip("'\"()").split("-") if p]
        if not parts or not all(p[0].isupper() for p in parts):
            return False
        capitalised += 1
    return capitalised > 0


# A number or date alteration is a short span: besides the value, at most this many other words (units, "in",
# "about"...). A whole sentence that happens to hold a number ("one of the Beatles") is not a number alteration.
MAX_OTHER_WORDS = 4
_VALUE_WORDS = frozenset(_NUMBER_WORDS) | frozenset(_SCALES) | frozenset(_MONTHS) | {"ad", "bc", "bce", "ce", "of"}


def _other_words(text: str) -> set[str]:
    """The words of ``text`` besides its number or date (stop words dropped, as in ``error_classes.words``)."""
    return {w for w in words(text) if w not in _VALUE_WORDS and not any(ch.isdigit() for ch in w)}


def _value_span_pair(original: str, divergent: str) -> bool:
    """Both sides are short spans around a value, and the words around it were not swapped wholesale
    ("John Logie Baird in 1944" -> "Nicole Ford in 1962" changed a name as well: not a number alteration)."""
    a, b = _other_words(original), _other_words(divergent)
    return len(a) <= MAX_OTHER_WORDS and len(b) <= MAX_OTHER_WORDS and (not a or not b or bool(a & b))


def alteration_kind(original: str, divergent: str) -> AlterationKind:
    """The kind of an alteration, from its two strings:

    - ``date`` when both parse as dates (``parse_date``) and the dates differ;
    - ``number`` when both hold one number (``parse_number``; a bare year beside a count is a number) and the
      numbers differ;
    - ``name`` when both are proper names (``is_name``);
    - ``other`` otherwise.

    Dates and numbers must also be what changed: short spans (at most ``MAX_OTHER_WORDS`` words besides the
    value) whose other words, when both sides have some, share at least one; two sentences that hold the same
    year or count differ elsewhere."""
    if _value_span_pair(original, divergent):
        d1, d2 = parse_date(original), parse_date(divergent)
        if d1 is not None and d2 is not None and d1 != d2:
            return "date"
        n1, n2 = parse_number(original), parse_number(divergent)
        if n1 is not None and n2 is not None and n1 != n2:
            return "number"
    if is_name(original) and is_name(divergent):
        return "name"
    return "other"


def alteration_distance(original: str, divergent: str) -> float | None:
    """How far the divergent value lies from the real one:

    - dates: the gap in years, at the precision both sides share: ``|days| / 365.2425`` when both give a day,
      ``|months| / 12`` when both give a month, else ``|years|``;
    - numbers: ``|ln(divergent / original)|``, the size of the multiplicative change (x2 and x0.5 are equally
      far: ln 2); None when either is 0 or the sign flips;
    - names and other kinds: None (no scale)."""
    kind = alteration_kind(original, divergent)
    if kind == "date":
        a, b = parse_date(original), parse_date(divergent)
        assert a is not None and b is not None
        full = a.day is not None and b.day is not None and a.month is not None and b.month is not None
        if full and a.year > 0 and b.year > 0:
            assert a.month is not None and b.month is not None and a.day is not None and b.day is not None
            return abs((date(b.year, b.month, b.day) - date(a.year, a.month, a.day)).days) / 365.2425
        if a.month is not None and b.month is not None:
            return abs((b.year * 12 + b.month) - (a.year * 12 + a.month)) / 12.0
        return float(abs(b.year - a.year))
    if kind == "number":
        x, y = parse_number(original), parse_number(divergent)
        assert x is not None and y is not None
        if x == 0.0 or y == 0.0 or (x < 0) != (y < 0):
            return None
        return abs(math.log(y / x))
    return None


# Bin edges, lower bound inclusive, the last bin open: numbers by the factor between the values
# (x1-1.1, x1.1-1.5, x1.5-2, x2-5, x5-10, x10 and more), dates by years (<1, 1-5, 5-10, 10-50, 50-100, 100+).
NUMBER_BIN_EDGES: tuple[float, ...] = (0.0, math.log(1.1), math.log(1.5), math.log(2.0), math.log(5.0), math.log(10.0))
NUMBER_BIN_LABELS: tuple[str, ...] = ("x1-1.1", "x1.1-1.5", "x1.5-2", "x2-5", "x5-10", "x10+")
DATE_BIN_EDGES: tuple[float, ...] = (0.0, 1.0, 5.0, 10.0, 50.0, 100.0)
DATE_BIN_LABELS: tuple[str, ...] = ("<1y", "1-5y", "5-10y", "10-50y", "50-100y", "100y+")


def distance_bin(distance: float, edges: Sequence[float]) -> int:
    """Index of the bin ``[edges[i], edges[i + 1])`` holding ``distance``; the last bin is open-ended."""
    if distance < edges[0]:
        raise ValueError("distance below the first edge")
    index = 0
    for i, edge in enumerate(edges):
        if distance >= edge:
            index = i
    return index


# --------------------------------------------------------------------------------------------------------------
# Observations and the figures over them.


@dataclass(frozen=True)
class ConflictObservation:
    """One model's answer to one item under one condition and temperature.

    ``answer`` is the error class of the answer given with the context (None when the item is unverified or the
    answer is missing); ``prior`` the class of the same model's closed-book answer; ``kind`` and ``distance``
    describe the alteration the item turns on (distance None unless exactly one number or date alteration)."""

    item: Hashable
    prior: PriorClass
    answer: ErrorClass | None
    kind: AlterationKind
    distance: float | None


def observe(
    item: Hashable, facts: ItemFacts, *, answer: str | None, closed_book_answer: str | None
) -> ConflictObservation:
    """Classify one item for one model: its closed-book answer (``classify_prior``), its answer with the context
    (``scoring.error_classes.classify_answer``, None where the facts give no marker on one side), and the
    alteration's kind and distance (several relevant alterations: their shared kind or ``other``, no
    distance)."""
    divergent, original = facts.markers()
    prior = classify_prior(closed_book_answer, divergent, original)
    verifiable = bool(divergent) and bool(original)
    answer_class = classify_answer(answer, divergent, original) if verifiable and answer is not None else None
    pairs = facts.altered_pairs()
    kinds = {alteration_kind(o, d) for o, d in pairs}
    kind: AlterationKind = kinds.pop() if len(kinds) == 1 else "other"
    distance = alteration_distance(*pairs[0]) if len(pairs) == 1 else None
    return ConflictObservation(item, prior, answer_class, kind, distance)


def with_conflict(observations: Iterable[ConflictObservation]) -> list[ConflictObservation]:
    """The observations where the conflict exists: the model knew the original fact closed-book."""
    return [o for o in observations if o.prior == "knows_original"]


@dataclass(frozen=True)
class SideCounts:
    """How the classified answers split: ``followed`` the context (the substituted fact), ``reverted`` to the
    original fact, ``neither``; ``unclassified`` answers (unverified item or no answer) are only counted."""

    followed: int
    reverted: int
    neither: int
    unclassified: int

    @property
    def classified(self) -> int:
        return self.followed + self.reverted + self.neither


def side_counts(observations: Iterable[ConflictObservation]) -> SideCounts:
    """Counts of the answer classes over ``observations``."""
    c = Counter(o.answer for o in observations)
    return SideCounts(c["followed_context"], c["reverted_to_prior"], c["neither"], c[None])


def _share(hits: Sequence[float], n_boot: int, seed: int, level: float, empty_reason: str) -> Estimate:
    if not hits:
        return Estimate(None, reason=empty_reason)
    lo, hi = bootstrap_ci(hits, n_boot=n_boot, seed=seed, level=level)
    return Estimate(float(np.mean(hits)), lo, hi, n=len(hits))


@dataclass(frozen=True)
class ContextFollowing:
    """Share of classified answers that follow the context, over all items and over the items where the conflict
    exists, with the prior classes counted (so a reader sees how many items the conflict figure rests on)."""

    all_items: Estimate
    conflict_only: Estimate
    priors: dict[str, int]
    unclassified: int


def context_following(
    observations: Sequence[ConflictObservation], *, n_boot: int = 1000, seed: int = 0, level: float = 0.95
) -> ContextFollowing:
    """``followed / classified`` on all observations and on ``with_conflict(observations)``, each with a
    percentile bootstrap interval over items. A model that never knew the fact scores high on the first figure
    and has no support for the second."""
    classified = [o for o in observations if o.answer is not None]
    conflict = with_conflict(classified)
    return ContextFollowing(
        all_items=_share(
            [float(o.answer == "followed_context") for o in classified], n_boot, seed, level, "no classified answer"
        ),
        conflict_only=_share(
            [float(o.answer == "followed_context") for o in conflict],
            n_boot,
            seed,
            level,
            "no item where the model knew the original fact",
        ),
        priors={p: sum(1 for o in observations if o.prior == p) for p in PRIOR_CLASSES},
        unclassified=len(observations) - len(classified),
    )


def followed_by_item(
    observations: Iterable[ConflictObservation], *, conflict_only: bool = False
) -> dict[Hashable, float]:
    """Item -> 1.0 if the answer followed the context, else 0.0, over the classified answers (optionally only
    where the conflict exists): the input of ``scoring.stats.paired_comparison`` for two models on shared items,
    which then runs McNemar's exact test. An item observed twice (several samples) is a ``ValueError``: average
    or pick the samples first."""
    out: dict[Hashable, float] = {}
    for o in observations:
        if o.answer is None or (conflict_only and o.prior != "knows_original"):
            continue
        if o.item in out:
            raise ValueError(f"item {o.item!r} observed twice")
        out[o.item] = 1.0 if o.answer == "followed_context" else 0.0
    return out


@dataclass(frozen=True)
class MemorisationRatio:
    """``M_R = p_o / (p_o + p_s)`` with its counts: ``p_o`` and ``p_s`` are the shares of classified answers
    that give the original and the substituted fact (Longpre et al. 2021)."""

    counts: SideCounts
    p_o: float | None
    p_s: float | None
    ratio: Estimate


def memorisation_ratio(
    observations: Sequence[ConflictObservation], *, n_boot: int = 1000, seed: int = 0, level: float = 0.95
) -> MemorisationRatio:
    """Longpre et al. (2021), "Entity-Based Knowledge Conflicts in Question Answering": the memorisation
    ratio ``p_o / (p_o + p_s)``, which equals ``reverted / (reverted + followed)``. Answers that give neither
    fact do not enter it. The ratio is None when no answer takes a side; its interval resamples the classified
    answers (resamples with no side-taking answer are left out)."""
    counts = side_counts(observations)
    n = counts.classified
    p_o = counts.reverted / n if n else None
    p_s = counts.followed / n if n else None
    sides = counts.reverted + counts.followed
    if not sides:
        return MemorisationRatio(counts, p_o, p_s, Estimate(None, n=n, reason="p_o + p_s = 0: no answer takes a side"))
    codes = np.array([_side_code(o.answer) for o in observations if o.answer is not None])
    interval = bootstrap_statistic(n, _ratio_of(codes, 1, -1), n_boot=n_boot, seed=seed, level=level)
    value = counts.reverted / sides
    if interval is None:
        return MemorisationRatio(counts, p_o, p_s, Estimate(value, n=n, reason="no resample took a side"))
    return MemorisationRatio(counts, p_o, p_s, Estimate(value, interval.low, interval.high, n=n))


def _side_code(answer: ErrorClass | None) -> int:
    return {"reverted_to_prior": 1, "followed_context": -1}.get(answer or "", 0)


def _ratio_of(codes: np.ndarray, top: int, other: int) -> Callable[[np.ndarray], float | None]:
    """A statistic for ``bootstrap_statistic``: count(top) / (count(top) + count(other)) in the resample."""

    def statistic(idx: np.ndarray) -> float | None:
        sample = codes[idx]
        hits, rest = int((sample == top).sum()), int((sample == other).sum())
        return hits / (hits + rest) if hits + rest else None

    return statistic


@dataclass(frozen=True)
class PreferenceRate:
    """Context preference of one group: ``rate = followed / (followed + reverted)`` among the answers that take a
    side, with the counts (``neither`` answers are counted, not rated)."""

    counts: SideCounts
    rate: Estimate


def context_preference(
    observations: Sequence[ConflictObservation], *, n_boot: int = 1000, seed: int = 0, level: float = 0.95
) -> PreferenceRate:
    """The context-preference rate of ClashEval (Wu et al. 2024): of the answers that give one of the two
    facts, the share that give the context's. On the same answers it is ``1 - M_R``; it is reported by kind and
    by distance, where it shows how the pull of the context changes with the alteration."""
    counts = side_counts(observations)
    sided = [1.0 if o.answer == "followed_context" else 0.0 for o in observations if _side_code(o.answer) != 0]
    return PreferenceRate(counts, _share(sided, n_boot, seed, level, "no answer takes a side"))


def context_preference_by_kind(
    observations: Sequence[ConflictObservation],
    *,
    conflict_only: bool = True,
    n_boot: int = 1000,
    seed: int = 0,
    level: float = 0.95,
) -> dict[AlterationKind, PreferenceRate]:
    """``context_preference`` per alteration kind (every kind present, in ``ALTERATION_KINDS`` order), by default
    on the items where the conflict exists."""
    rows = with_conflict(observations) if conflict_only else list(observations)
    return {
        kind: context_preference([o for o in rows if o.kind == kind], n_boot=n_boot, seed=seed, level=level)
        for kind in ALTERATION_KINDS
    }


@dataclass(frozen=True)
class PreferenceBin:
    """One distance bin: ``[low, high)`` (``high`` None for the open last bin) and its context preference."""

    label: str
    low: float
    high: float | None
    preference: PreferenceRate


def context_preference_by_distance(
    observations: Sequence[ConflictObservation],
    kind: Literal["number", "date"],
    *,
    edges: Sequence[float] | None = None,
    labels: Sequence[str] | None = None,
    conflict_only: bool = True,
    n_boot: int = 1000,
    seed: int = 0,
    level: float = 0.95,
) -> list[PreferenceBin]:
    """``context_preference`` per distance bin for one kind (``NUMBER_BIN_EDGES`` / ``DATE_BIN_EDGES`` by
    default), the points of ClashEval's plot of preference against the size of the change. Observations of that
    kind without a distance are left out. Every bin is returned, empty ones with a None rate."""
    if kind not in ("number", "date"):
        raise ValueError("distance bins exist for numbers and dates only")
    if edges is None:
        edges = NUMBER_BIN_EDGES if kind == "number" else DATE_BIN_EDGES
        labels = labels if labels is not None else (NUMBER_BIN_LABELS if kind == "number" else DATE_BIN_LABELS)
    edges = tuple(edges)
    if list(edges) != sorted(set(edges)) or not edges:
        raise ValueError("edges must be increasing")
    if labels is None:
        labels = [f"[{lo:g}, {hi:g})" for lo, hi in itertools.pairwise(edges)] + [f">= {edges[-1]:g}"]
    if len(labels) != len(edges):
        raise ValueError("one label per bin")
    rows = with_conflict(observations) if conflict_only else list(observations)
    rows = [o for o in rows if o.kind == kind and o.distance is not None]
    bins: list[list[ConflictObservation]] = [[] for _ in edges]
    for o in rows:
        assert o.distance is not None
        bins[distance_bin(o.distance, edges)].append(o)
    out = []
    for i, members in enumerate(bins):
        high = edges[i + 1] if i + 1 < len(edges) else None
        preference = context_preference(members, n_boot=n_boot, seed=seed, level=level)
        out.append(PreferenceBin(labels[i], edges[i], high, preference))
    return out
