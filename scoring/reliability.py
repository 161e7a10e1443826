"""Agreement and reliability of raters (judges, people, embedding metrics), in plain Python (no Django).

- ``confusion_matrix``, ``cohen_kappa``, ``weighted_kappa``: two raters on the same items;
- ``icc``: intraclass correlation (Shrout & Fleiss 1979) for graded scores, test–retest included;
- ``alpha_estimate`` / ``kappa_estimate`` / ``icc_estimate``: the same with a bootstrap interval over units, as
  exportable ``Estimate`` objects (None with a reason instead of NaN);
- ``compare_to_reference``: one rater (a judge, the panel, ASS, CUS) against a reference (human labels):
  kappa, Pearson and Spearman with intervals, the confusion matrix and the items where they disagree;
- ``retest_agreement``: a judge against itself on a re-judged sample (test–retest);
- ``flag_raters``: the raters whose agreement with people falls below a threshold.

Raw functions return NaN where a statistic is 0/0 (as ``annotation.agreement`` does); everything meant for
export goes through ``Estimate``. Definitions and sources: docs/conflict_and_judges.md.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np

from scoring.stats import Estimate, K, bootstrap_statistic, correlation_estimate, finite_or_none, krippendorff_alpha

# The 5-level scale of CDK-E's accuracy and completeness judges (Context Is King, Table 1).
QUARTER_SCALE: tuple[float, ...] = (0.0, 0.25, 0.5, 0.75, 1.0)

Scale = Literal["nominal", "ordinal", "continuous"]
IccForm = Literal["1,1", "2,1", "3,1"]


@dataclass(frozen=True)
class ConfusionMatrix:
    """``counts[i][j]``: items the reference labelled ``categories[i]`` and the other rater ``categories[j]``."""

    categories: tuple[Any, ...]
    counts: tuple[tuple[int, ...], ...]

    def as_json(self) -> dict[str, Any]:
        return {"categories": list(self.categories), "counts": [list(row) for row in self.counts]}


def confusion_matrix(
    reference: Sequence[Hashable], other: Sequence[Hashable], categories: Sequence[Hashable] | None = None
) -> ConfusionMatrix:
    """Cross-tabulation of two raters' labels on the same items, rows the reference. The categories are the
    ones given (a label outside them is a ``ValueError``) or the labels seen, sorted."""
    _check_paired(reference, other)
    cats = tuple(categories) if categories is not None else tuple(_sorted_labels({*reference, *other}))
    index = {c: i for i, c in enumerate(cats)}
    unknown = {x for x in [*reference, *other] if x not in index}
    if unknown:
        raise ValueError(f"labels outside the categories {cats}: {sorted(map(repr, unknown))}")
    counts = [[0] * len(cats) for _ in cats]
    for a, b in zip(reference, other, strict=True):
        counts[index[a]][index[b]] += 1
    return ConfusionMatrix(cats, tuple(tuple(row) for row in counts))


def cohen_kappa(labels_a: Sequence[Hashable], labels_b: Sequence[Hashable]) -> float:
    """Cohen's kappa (Cohen 1960): ``(p_o - p_e) / (1 - p_e)``, ``p_o`` the share of items where the two agree,
    ``p_e = sum_c p_a(c) p_b(c)`` the agreement expected from the two raters' own label shares. NaN when
    ``p_e = 1`` (both used one and the same label throughout)."""
    _check_paired(labels_a, labels_b)
    n = len(labels_a)
    observed = sum(1 for a, b in zip(labels_a, labels_b, strict=True) if a == b) / n
    count_a, count_b = Counter(labels_a), Counter(labels_b)
    expected = sum(count_a[c] * count_b[c] for c in count_a) / (n * n)
    if math.isclose(expected, 1.0):
        return math.nan
    return (observed - expected) / (1.0 - expected)


def weighted_kappa(
    labels_a: Sequence[float],
    labels_b: Sequence[float],
    categories: Sequence[float] = QUARTER_SCALE,
    weights: Literal["linear", "quadratic"] = "linear",
) -> float:
    """Weighted kappa on an ordered scale (Cohen 1968): ``1 - sum_ij w_ij O_ij / sum_ij w_ij E_ij``, ``O`` the
    observed and ``E`` the expected (product of the marginals) shares, disagreement weights
    ``w_ij = |i - j| / (k - 1)`` (linear) or its square (quadratic) over the category indices. NaN when the
    expected disagreement is 0."""
    _check_paired(labels_a, labels_b)
    if weights not in ("linear", "quadratic"):
        raise ValueError("weights must be 'linear' or 'quadratic'")
    k = len(categories)
    if k < 2:
        raise ValueError("weighted kappa needs at least two categories")
    matrix = confusion_matrix(labels_a, labels_b, categories)
    n = len(labels_a)
    rows = [sum(row) / n for row in matrix.counts]
    cols = [sum(row[j] for row in matrix.counts) / n for j in range(k)]
    power = 1 if weights == "linear" else 2
    observed = expected = 0.0
    for i in range(k):
        for j in range(k):
            w = (abs(i - j) / (k - 1)) ** power
            observed += w * matrix.counts[i][j] / n
            expected += w * rows[i] * cols[j]
    if math.isclose(expected, 0.0):
        return math.nan
    return 1.0 - observed / expected


def icc(ratings: Sequence[Sequence[float]], form: IccForm = "2,1") -> float:
    """Intraclass correlation of ``k`` raters (or occasions) over ``n`` targets (Shrout & Fleiss 1979).

    ``ratings`` is one list per rater over the same targets (the layout of ``krippendorff_alpha``), complete.
    With the mean squares of the two-way table, BMS (between targets), JMS (between raters), WMS (within
    targets) and EMS (residual):

    - ``"1,1"``: one-way random, ``(BMS - WMS) / (BMS + (k - 1) WMS)``;
    - ``"2,1"``: two-way random, absolute agreement, ``(BMS - EMS) / (BMS + (k - 1) EMS + k (JMS - EMS) / n)``;
    - ``"3,1"``: two-way mixed, consistency, ``(BMS - EMS) / (BMS + (k - 1) EMS)``.

    Test–retest uses ICC(2,1): a judge that scores everything a step higher on the second occasion does not
    agree with itself, and only the absolute-agreement form counts that shift against it (ICC(3,1) forgives
    it). NaN when the denominator is 0 (no variance at all). Needs ``n >= 2`` targets and ``k >= 2`` raters."""
    if form not in ("1,1", "2,1", "3,1"):
        raise ValueError("form must be '1,1', '2,1' or '3,1'")
    table = np.asarray(ratings, dtype=np.float64).T  # targets x raters
    if table.ndim != 2 or table.shape[0] < 2 or table.shape[1] < 2:
        raise ValueError("ICC needs at least two raters over at least two targets")
    if not np.all(np.isfinite(table)):
        raise ValueError("ICC needs complete, finite ratings")
    n, k = table.shape
    grand = table.mean()
    ss_total = float(((table - grand) ** 2).sum())
    ss_targets = k * float(((table.mean(axis=1) - grand) ** 2).sum())
    ss_raters = n * float(((table.mean(axis=0) - grand) ** 2).sum())
    bms = ss_targets / (n - 1)
    jms = ss_raters / (k - 1)
    wms = (ss_total - ss_targets) / (n * (k - 1))
    ems = (ss_total - ss_targets - ss_raters) / ((n - 1) * (k - 1))
    if form == "1,1":
        numerator, denominator = bms - wms, bms + (k - 1) * wms
    elif form == "2,1":
        numerator, denominator = bms - ems, bms + (k - 1) * ems + k * (jms - ems) / n
    else:
        numerator, denominator = bms - ems, bms + (k - 1) * ems
    if math.isclose(denominator, 0.0, abs_tol=1e-12):
        return math.nan
    return numerator / denominator


# --------------------------------------------------------------------------------------------------------------
# The same statistics with bootstrap intervals, ready to export.


def alpha_estimate(
    reliability_data: Sequence[Sequence[Any]],
    level: str,
    *,
    n_boot: int = 1000,
    seed: int = 0,
    ci: float = 0.95,
) -> Estimate:
    """``krippendorff_alpha`` with a percentile bootstrap interval over units (each resample draws units with
    replacement, every rater's value of a unit travelling together; resamples with no pairable unit or no
    variation are left out). ``n`` is the number of pairable units. Value None, with the reason, when no unit is
    pairable or every value is the same."""
    columns = list(zip(*reliability_data, strict=True))
    pairable = [c for c in columns if sum(v is not None for v in c) >= 2]
    if not pairable:
        if level not in ("nominal", "ordinal", "interval"):
            raise ValueError(f"unknown level {level!r}")
        return Estimate(None, n=0, reason="no pairable unit (every unit has fewer than two values)")
    value = finite_or_none(krippendorff_alpha(_rows(pairable), level))
    if value is None:
        return Estimate(None, n=len(pairable), reason="undefined: every pairable value is the same (D_e = 0)")

    statistic = alpha_resampler(pairable, level)
    interval = bootstrap_statistic(len(pairable), statistic, n_boot=n_boot, seed=seed, level=ci)
    return _with_interval(value, interval, len(pairable))


def alpha_resampler(units: Sequence[Sequence[Any]], level: str) -> Callable[[np.ndarray], float]:
    """``krippendorff_alpha`` of a resample of ``units`` (one tuple of every rater's value per unit, each with at
    least two values), as a function of the resample's unit indices, for ``bootstrap_statistic``.

    The same definition as ``krippendorff_alpha``, computed from each unit's own coincidence matrix (the matrix
    of a resample is the sum of its units' matrices, each as often as drawn), so a resample costs one matrix
    product instead of a pass over its values: a 1000-resample interval over 2000 units takes milliseconds, not
    seconds. A test keeps it equal to ``krippendorff_alpha`` on every level."""
    counts = [Counter(v for v in unit if v is not None) for unit in units]
    values = list(dict.fromkeys(v for unit in counts for v in unit))
    if level != "nominal":
        values = sorted(values)
    index = {v: i for i, v in enumerate(values)}
    k = len(values)
    per_unit = np.zeros((len(counts), k, k))
    for u, unit in enumerate(counts):
        m = sum(unit.values())
        for c, n_c in unit.items():
            for d, n_d in unit.items():
                per_unit[u, index[c], index[d]] += (n_c * (n_d - 1) if c == d else n_c * n_d) / (m - 1)
    flat = per_unit.reshape(len(counts), k * k)
    rows, cols = np.meshgrid(np.arange(k), np.arange(k), indexing="ij")
    if level == "nominal":
        fixed: np.ndarray | None = (rows != cols).astype(float)
    elif level == "interval":
        x = np.asarray(values, dtype=np.float64)
        fixed = (x[:, None] - x[None, :]) ** 2
    elif level == "ordinal":
        fixed = None
    else:
        raise ValueError(f"unknown level {level!r}")
    low, high = np.minimum(rows, cols), np.maximum(rows, cols)

    def statistic(idx: np.ndarray) -> float:
        weights = np.bincount(idx, minlength=len(counts)).astype(np.float64)
        coincidences = (weights @ flat).reshape(k, k)
        totals = coincidences.sum(axis=1)
        if fixed is not None:
            delta = fixed
        else:  # ordinal: (sum_{g=c..k} n_g - (n_c + n_k) / 2)^2, with this resample's n_g
            cumulative = np.cumsum(totals)
            span = cumulative[high] - cumulative[low] + totals[low]
            delta = np.where(rows == cols, 0.0, (span - (totals[rows] + totals[cols]) / 2.0) ** 2)
        expected = float((np.outer(totals, totals) * delta).sum())
        if expected == 0.0:
            return math.nan
        return 1.0 - (float(totals.sum()) - 1.0) * float((coincidences * delta).sum()) / expected

    return statistic


def kappa_estimate(
    labels_a: Sequence[Any],
    labels_b: Sequence[Any],
    *,
    weighted: Literal["linear", "quadratic"] | None = None,
    categories: Sequence[float] = QUARTER_SCALE,
    n_boot: int = 1000,
    seed: int = 0,
    ci: float = 0.95,
) -> Estimate:
    """Cohen's kappa (``weighted=None``) or weighted kappa on ``categories``, with a percentile bootstrap
    interval over items. Value None, with the reason, when kappa is undefined."""
    _check_paired(labels_a, labels_b)

    def kappa(a: Sequence[Any], b: Sequence[Any]) -> float:
        return cohen_kappa(a, b) if weighted is None else weighted_kappa(a, b, categories, weighted)

    value = finite_or_none(kappa(labels_a, labels_b))
    if value is None:
        return Estimate(None, n=len(labels_a), reason="undefined: chance agreement is total (one label throughout)")

    def statistic(idx: np.ndarray) -> float | None:
        return kappa([labels_a[i] for i in idx], [labels_b[i] for i in idx])

    interval = bootstrap_statistic(len(labels_a), statistic, n_boot=n_boot, seed=seed, level=ci)
    return _with_interval(value, interval, len(labels_a))


def icc_estimate(
    ratings: Sequence[Sequence[float]], form: IccForm = "2,1", *, n_boot: int = 1000, seed: int = 0, ci: float = 0.95
) -> Estimate:
    """``icc`` with a percentile bootstrap interval over targets (each resample keeps a target's ratings
    together). Value None, with the reason, when the ICC is undefined or there are fewer than two targets."""
    targets = list(zip(*ratings, strict=True))
    if len(targets) < 2:
        return Estimate(None, n=len(targets), reason="ICC needs at least two targets")
    value = finite_or_none(icc(_rows(targets), form))
    if value is None:
        return Estimate(None, n=len(targets), reason="undefined: no variance in the ratings")

    def statistic(idx: np.ndarray) -> float | None:
        return icc(_rows([targets[i] for i in idx]), form)

    interval = bootstrap_statistic(len(targets), statistic, n_boot=n_boot, seed=seed, level=ci)
    return _with_interval(value, interval, len(targets))


# --------------------------------------------------------------------------------------------------------------
# A rater against a reference (people), and a judge against itself.


@dataclass(frozen=True)
class RaterAgreement:
    """One rater against a reference on the items both scored.

    ``kappa`` is Cohen's (nominal) or linear weighted (ordinal) kappa, None for continuous scores;
    ``pearson`` / ``spearman`` are None for non-numeric labels; ``confusion`` is None for continuous scores;
    ``disagreements`` are the item ids where the two differ (continuous: by more than the tolerance)."""

    n: int
    scale: Scale
    kappa: Estimate
    pearson: Estimate
    spearman: Estimate
    exact_agreement: float | None
    confusion: ConfusionMatrix | None
    disagreements: tuple[Hashable, ...] = field(default_factory=tuple)


def compare_to_reference(
    reference: Mapping[K, Any],
    rater: Mapping[K, Any],
    *,
    scale: Scale,
    categories: Sequence[Any] | None = None,
    tolerance: float = 0.25,
    n_boot: int = 1000,
    seed: int = 0,
    ci: float = 0.95,
) -> RaterAgreement:
    """A judge, the panel or an embedding metric (``rater``: item id -> score) against human labels
    (``reference``), on the items both have a value for (None and NaN count as no value).

    ``scale="nominal"`` (LAV): Cohen's kappa; ``"ordinal"`` (Acc, Cm): linear weighted kappa on
    ``categories`` (default the quarter scale); ``"continuous"`` (ASS, CUS against graded labels): no kappa.
    Pearson and Spearman with Fisher z intervals whenever both sides are numbers. Disagreements: items whose
    labels differ (nominal, ordinal) or whose scores differ by more than ``tolerance`` (continuous)."""
    if scale not in ("nominal", "ordinal", "continuous"):
        raise ValueError("scale must be 'nominal', 'ordinal' or 'continuous'")
    keys = [k for k in reference if _present(reference[k]) and _present(rater.get(k))]
    ref = [reference[k] for k in keys]
    other = [rater[k] for k in keys]
    if not keys:
        none = Estimate(None, reason="no item scored by both")
        return RaterAgreement(0, scale, none, none, none, None, None)
    numeric = all(_is_number(v) for v in [*ref, *other])
    if scale == "continuous":
        kappa = Estimate(None, n=len(keys), reason="no kappa on a continuous scale")
        confusion = None
        differs = [abs(float(a) - float(b)) > tolerance for a, b in zip(ref, other, strict=True)]
    else:
        cats = tuple(categories) if categories is not None else (QUARTER_SCALE if scale == "ordinal" else None)
        confusion = confusion_matrix(ref, other, cats)
        weighted: Literal["linear"] | None = "linear" if scale == "ordinal" else None
        kappa = kappa_estimate(
            ref, other, weighted=weighted, categories=confusion.categories, n_boot=n_boot, seed=seed, ci=ci
        )
        differs = [a != b for a, b in zip(ref, other, strict=True)]
    if numeric:
        xs, ys = [float(v) for v in ref], [float(v) for v in other]
        r = correlation_estimate(xs, ys, method="pearson", level=ci)
        rho = correlation_estimate(xs, ys, method="spearman", level=ci)
    else:
        r = rho = Estimate(None, n=len(keys), reason="labels are not numbers")
    exact = sum(1 for a, b in zip(ref, other, strict=True) if a == b) / len(keys)
    disagreements = tuple(k for k, d in zip(keys, differs, strict=True) if d)
    return RaterAgreement(len(keys), scale, kappa, r, rho, exact, confusion, disagreements)


@dataclass(frozen=True)
class RetestAgreement:
    """A judge against itself: ``kappa`` (Cohen's for nominal verdicts, linear weighted for ordinal scores),
    ``icc`` (ICC(2,1), for ordinal and continuous scores), the share of identical verdicts and the items that
    changed."""

    n: int
    kappa: Estimate
    icc: Estimate
    exact_agreement: float | None
    changed: tuple[Hashable, ...]


def retest_agreement(
    first: Mapping[K, Any],
    second: Mapping[K, Any],
    *,
    scale: Scale,
    categories: Sequence[Any] | None = None,
    n_boot: int = 1000,
    seed: int = 0,
    ci: float = 0.95,
) -> RetestAgreement:
    """The same judge on the same items twice (the second time with the response cache off), on the items both
    occasions scored. ICC(2,1) (see ``icc``) for graded scores, kappa for verdicts."""
    agreement = compare_to_reference(
        first, second, scale=scale, categories=categories, tolerance=0.0, n_boot=n_boot, seed=seed, ci=ci
    )
    keys = [k for k in first if _present(first[k]) and _present(second.get(k))]
    if scale == "nominal" or not keys:
        reason = "no ICC for nominal verdicts" if keys else "no item scored on both occasions"
        icc_value = Estimate(None, n=len(keys), reason=reason)
    else:
        ratings = [[float(first[k]) for k in keys], [float(second[k]) for k in keys]]
        icc_value = icc_estimate(ratings, "2,1", n_boot=n_boot, seed=seed, ci=ci)
    return RetestAgreement(agreement.n, agreement.kappa, icc_value, agreement.exact_agreement, agreement.disagreements)


def flag_raters(agreement: Mapping[K, float | None], threshold: float) -> dict[K, str]:
    """The raters to flag on every table that shows their scores: agreement with people below ``threshold``,
    or unknown (None: no calibration sample, or kappa undefined). Maps each flagged rater to the reason."""
    flagged: dict[K, str] = {}
    for rater, value in agreement.items():
        if value is None or not math.isfinite(value):
            flagged[rater] = "agreement with people unknown"
        elif value < threshold:
            flagged[rater] = f"agreement with people {value:.3f} below the threshold {threshold:.3f}"
    return flagged


def _with_interval(value: float, interval: Any, n: int) -> Estimate:
    if interval is None:
        return Estimate(value, n=n, reason="no bootstrap resample gave a value")
    return Estimate(value, interval.low, interval.high, n=n)


def _rows(columns: Sequence[Sequence[Any]]) -> list[list[Any]]:
    """Units (one tuple of every rater's value per unit) back into one list per rater."""
    return [list(row) for row in zip(*columns, strict=True)]


def _present(value: Any) -> bool:
    """A value was given: not None and not a float NaN."""
    return value is not None and not (isinstance(value, float) and math.isnan(value))


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)


def _sorted_labels(labels: set[Any]) -> list[Any]:
    try:
        return sorted(labels)
    except TypeError:
        return sorted(labels, key=repr)


def _check_paired(labels_a: Sequence[object], labels_b: Sequence[object]) -> None:
    if len(labels_a) != len(labels_b):
        raise ValueError("the two raters must label the same items")
    if not labels_a:
        raise ValueError("no labels")
