"""Agreement statistics and alignment scores, in plain Python (no Django).

- ``cohen_kappa`` for two raters on nominal labels, ``weighted_kappa`` for the ordinal 5-level scale of
  CDK-E's Acc and Cm (0, 0.25, 0.5, 0.75, 1): those of ``scoring.reliability``, which the judges' calibration
  uses too; ``fleiss_kappa`` for any number of raters;
- ``pairwise_f1`` / ``mean_pairwise_f1`` over sets of aligned triplet pairs (S3KG/TAU reports 0.97-0.99
  for its three annotators);
- ``alignment_prf``: micro and macro precision, recall and F1 of predicted alignments against consensus
  alignments, item by item, and ``kea_exact_align``, a KEA-style component-wise exact-match baseline;
- ``table2``: those figures per method in the layout of the S3KG paper's Table 2.

Conventions where a ratio is 0/0 are stated on each function and in docs/annotation.md.
"""

from __future__ import annotations

import itertools
import math
import re
from collections import Counter
from collections.abc import Hashable, Mapping, Sequence, Set
from dataclasses import dataclass

# Re-exported: the reports and the calibration import them from here.
from scoring.reliability import QUARTER_SCALE as QUARTER_SCALE
from scoring.reliability import cohen_kappa as cohen_kappa
from scoring.reliability import weighted_kappa as weighted_kappa

Pair = tuple[int, int]
TripletT = Sequence[str]


def fleiss_kappa(table: Sequence[Sequence[int]]) -> float:
    """Fleiss' kappa from a subjects x categories table of counts (every row sums to the same number of
    raters n >= 2): ``(P_bar - P_e) / (1 - P_e)``. NaN when ``P_e`` is 1."""
    if not table:
        raise ValueError("empty table")
    raters = {sum(row) for row in table}
    if len(raters) != 1:
        raise ValueError("every subject must be rated by the same number of raters")
    n = raters.pop()
    if n < 2:
        raise ValueError("Fleiss' kappa needs at least two raters per subject")
    subjects = len(table)
    per_subject = [(sum(c * c for c in row) - n) / (n * (n - 1)) for row in table]
    p_bar = sum(per_subject) / subjects
    k = len(table[0])
    shares = [sum(row[j] for row in table) / (subjects * n) for j in range(k)]
    p_e = sum(p * p for p in shares)
    if math.isclose(p_e, 1.0):
        return math.nan
    return (p_bar - p_e) / (1.0 - p_e)


def accuracy(labels_a: Sequence[Hashable], labels_b: Sequence[Hashable]) -> float:
    """Share of positions where the two label sequences agree."""
    _check_paired(labels_a, labels_b)
    return sum(1 for a, b in zip(labels_a, labels_b, strict=True) if a == b) / len(labels_a)


def pairwise_f1(set_a: Set[Hashable], set_b: Set[Hashable]) -> float:
    """F1 of two annotators' sets of aligned pairs, ``2 |A & B| / (|A| + |B|)``; two empty sets agree."""
    if not set_a and not set_b:
        return 1.0
    return 2 * len(set_a & set_b) / (len(set_a) + len(set_b))


def mean_pairwise_f1(sets: Sequence[Set[Hashable]]) -> float:
    """Mean of ``pairwise_f1`` over every pair of annotators (three annotators: three pairs)."""
    if len(sets) < 2:
        raise ValueError("need at least two annotators")
    scores = [pairwise_f1(a, b) for a, b in itertools.combinations(sets, 2)]
    return sum(scores) / len(scores)


@dataclass(frozen=True)
class PRF:
    micro_precision: float
    micro_recall: float
    micro_f1: float
    macro_precision: float
    macro_recall: float
    macro_f1: float


def _f1(p: float, r: float) -> float:
    return 2 * p * r / (p + r) if p + r > 0 else 0.0


def _ratio(hits: int, total: int, other_empty: bool) -> float:
    """hits / total; when total is 0, 1.0 if the other side is empty too (nothing to find, nothing found)."""
    if total:
        return hits / total
    return 1.0 if other_empty else 0.0


def alignment_prf(predicted: Sequence[Set[Pair]], gold: Sequence[Set[Pair]]) -> PRF:
    """Precision, recall and F1 of predicted aligned pairs against gold (consensus) pairs, one set per item.

    Micro pools the counts over items; macro averages the per-item figures. An item with no predicted
    pairs has precision 1 if it has no gold pairs either, else 0 (recall likewise, mirrored)."""
    if len(predicted) != len(gold):
        raise ValueError("one predicted set per gold set")
    if not gold:
        raise ValueError("no items")
    tp = sum(len(p & g) for p, g in zip(predicted, gold, strict=True))
    n_pred = sum(len(p) for p in predicted)
    n_gold = sum(len(g) for g in gold)
    micro_p = _ratio(tp, n_pred, n_gold == 0)
    micro_r = _ratio(tp, n_gold, n_pred == 0)
    ps, rs, fs = [], [], []
    for p, g in zip(predicted, gold, strict=True):
        hits = len(p & g)
        item_p, item_r = _ratio(hits, len(p), not g), _ratio(hits, len(g), not p)
        ps.append(item_p)
        rs.append(item_r)
        fs.append(_f1(item_p, item_r))
    m = len(gold)
    return PRF(micro_p, micro_r, _f1(micro_p, micro_r), sum(ps) / m, sum(rs) / m, sum(fs) / m)


def majority_pairs(sets: Sequence[Set[Pair]], quorum: int | None = None) -> set[Pair]:
    """Consensus alignment of several annotators: the pairs marked by at least ``quorum`` of them
    (default: a strict majority, 2 of 3)."""
    need = quorum if quorum is not None else len(sets) // 2 + 1
    counts = Counter(pair for s in sets for pair in s)
    return {pair for pair, c in counts.items() if c >= need}


_SPACE = re.compile(r"\s+")
_EDGE_PUNCT = re.compile(r"^[\W_]+|[\W_]+$")


def normalise_component(text: str) -> str:
    """Case-folded, whitespace collapsed, underscores read as spaces, punctuation trimmed at both ends."""
    return _EDGE_PUNCT.sub("", _SPACE.sub(" ", text.replace("_", " ")).strip().casefold())


def kea_exact_align(answer: Sequence[TripletT], gold: Sequence[TripletT]) -> set[Pair]:
    """KEA-style component-wise matching: answer triplet i aligns to gold triplet j only when head,
    relation and tail are equal after ``normalise_component``; one-to-one, first free gold triplet wins."""
    used: set[int] = set()
    out: set[Pair] = set()
    keys = [tuple(normalise_component(c) for c in t) for t in gold]
    for i, triplet in enumerate(answer):
        key = tuple(normalise_component(c) for c in triplet)
        for j, gold_key in enumerate(keys):
            if j not in used and gold_key == key:
                used.add(j)
                out.add((i, j))
                break
    return out


TABLE2_COLUMNS = ("Micro P", "Micro R", "Micro F1", "Macro P", "Macro R", "Macro F1")


def table2(methods: Mapping[str, Sequence[Set[Pair]]], consensus: Sequence[Set[Pair]]) -> list[tuple[str, PRF]]:
    """One row per method (in the order given): its alignment scored against the consensus alignment."""
    return [(name, alignment_prf(predicted, consensus)) for name, predicted in methods.items()]


def format_table2(rows: Sequence[tuple[str, PRF]]) -> str:
    """Rows as a plain-text table: method, then micro and macro precision, recall and F1."""
    width = max([len("Method"), *(len(name) for name, _ in rows)])
    lines = ["  ".join(["Method".ljust(width), *(c.rjust(8) for c in TABLE2_COLUMNS)])]
    for name, prf in rows:
        values = (prf.micro_precision, prf.micro_recall, prf.micro_f1, prf.macro_precision, prf.macro_recall)
        cells = [f"{v:.3f}".rjust(8) for v in (*values, prf.macro_f1)]
        lines.append("  ".join([name.ljust(width), *cells]))
    return "\n".join(lines)


def _check_paired(labels_a: Sequence[object], labels_b: Sequence[object]) -> None:
    if len(labels_a) != len(labels_b):
        raise ValueError("the two raters must label the same items")
    if not labels_a:
        raise ValueError("no labels")
