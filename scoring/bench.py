"""Binary paraphrase detection figures: max F1 over a threshold sweep, and AUROC.

As in the S3KG paper's benchmark (Arumugam et al., ICML 2026, Table 1): a similarity score predicts
"paraphrase" when it is at least the threshold; every distinct score is tried as the threshold.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from scoring.alpha_sweep import SWEEP_ALPHAS
from scoring.s3kg import blend
from scoring.stats import average_ranks


@dataclass(frozen=True)
class ThresholdResult:
    """The best F1 of the sweep, the threshold that gives it, and precision and recall there."""

    f1: float
    threshold: float
    precision: float
    recall: float


def _check(scores: Sequence[float], labels: Sequence[int | bool]) -> None:
    if len(scores) != len(labels):
        raise ValueError("scores and labels differ in length")
    if any(int(label) not in (0, 1) for label in labels):
        raise ValueError("labels must be 0 or 1")


def max_f1(scores: Sequence[float], labels: Sequence[int | bool]) -> ThresholdResult:
    """Max F1 over thresholds at every distinct score (predict 1 when ``score >= threshold``).

    Ties in F1 go to the highest threshold. No positive label, or no score, gives F1 0.0 (threshold
    ``inf`` when there is no score).
    """
    _check(scores, labels)
    positives = sum(int(label) for label in labels)
    if not scores or positives == 0:
        return ThresholdResult(0.0, float("inf") if not scores else max(scores), 0.0, 0.0)
    pairs = sorted(zip(scores, (int(label) for label in labels), strict=True), key=lambda p: -p[0])
    best = ThresholdResult(-1.0, float("inf"), 0.0, 0.0)
    tp = fp = 0
    i = 0
    while i < len(pairs):
        threshold = pairs[i][0]
        while i < len(pairs) and pairs[i][0] == threshold:
            tp += pairs[i][1]
            fp += 1 - pairs[i][1]
            i += 1
        precision = tp / (tp + fp)
        recall = tp / positives
        f1 = 0.0 if tp == 0 else 2 * precision * recall / (precision + recall)
        if f1 > best.f1:
            best = ThresholdResult(f1, float(threshold), precision, recall)
    return best


def auroc(scores: Sequence[float], labels: Sequence[int | bool]) -> float | None:
    """Area under the ROC curve by the rank formula (Mann-Whitney U), ties counted one half.

    None when only one class is present.
    """
    _check(scores, labels)
    positives = sum(int(label) for label in labels)
    negatives = len(labels) - positives
    if positives == 0 or negatives == 0:
        return None
    ranks = average_ranks(scores)
    rank_sum = sum(rank for rank, label in zip(ranks, labels, strict=True) if int(label) == 1)
    return (rank_sum - positives * (positives + 1) / 2.0) / (positives * negatives)


@dataclass(frozen=True)
class BlendSweep:
    """AUROC of ``alpha * structural + (1 - alpha) * semantic`` at each alpha, and the best of them."""

    auroc: dict[float, float | None] = field(default_factory=dict)
    best_alpha: float | None = None
    best_auroc: float | None = None


def blend_sweep(
    structural: Sequence[float],
    semantic: Sequence[float],
    labels: Sequence[int | bool],
    alphas: Sequence[float] = SWEEP_ALPHAS,
) -> BlendSweep:
    """Blend two per-pair scores with S3KG's step 5 (``scoring.s3kg.blend``: alpha on the structural score, the sum
    clipped to [0, 1]) and sweep alpha.

    Any two scores can be blended: ``benchmarks/bench_extractor_pairs.py --sentence-ceiling`` puts the sentence
    cosine in place of S3KG's semantic score, to see how far a variant's structural score could carry S3KG if its
    semantic part were as good as the sentence embedding. Ties for the best AUROC go to the lowest alpha.
    """
    if len(structural) != len(semantic):
        raise ValueError("the structural and semantic scores differ in length")
    figures = {
        float(a): auroc([blend(a, s, m) for s, m in zip(structural, semantic, strict=True)], labels) for a in alphas
    }
    scored = [(value, -a) for a, value in figures.items() if value is not None]
    if not scored:
        return BlendSweep(figures)
    value, negative_alpha = max(scored)
    return BlendSweep(figures, -negative_alpha + 0.0, value)  # + 0.0: never -0.0
