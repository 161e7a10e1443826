"""Small statistics on plain lists, no Django: mean, bootstrap intervals, Pearson and Spearman correlations
(with Fisher z intervals), Krippendorff's alpha, exact paired tests (McNemar, sign test) and a paired comparison
of two models on shared items. Definitions and sources are in docs/conflict_and_judges.md."""

from __future__ import annotations

import itertools
import math
import numbers
from collections import Counter, defaultdict
from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass
from statistics import NormalDist
from typing import Any, Literal, TypeVar

import numpy as np

K = TypeVar("K", bound=Hashable)


def mean(values: Sequence[float]) -> float:
    """The arithmetic mean; ``ValueError`` on an empty sequence."""
    if len(values) == 0:
        raise ValueError("mean of an empty sequence")
    return float(math.fsum(values) / len(values))


def bootstrap_ci(
    values: Sequence[float], *, n_boot: int = 1000, seed: int = 0, level: float = 0.95
) -> tuple[float, float]:
    """Percentile bootstrap interval of the mean: ``n_boot`` resamples with replacement.

    Deterministic for a seed (numpy's PCG64). One value gives ``(v, v)``; empty input is a ValueError.
    """
    if len(values) == 0:
        raise ValueError("bootstrap of an empty sequence")
    if not 0.0 < level < 1.0:
        raise ValueError("level must lie in (0, 1)")
    data = np.asarray(values, dtype=np.float64)
    if len(data) == 1:
        return float(data[0]), float(data[0])
    means = bootstrap_means(len(data), [data], n_boot=n_boot, seed=seed)[0]
    tail = (1.0 - level) / 2.0
    lo, hi = np.quantile(means, [tail, 1.0 - tail])
    return float(lo), float(hi)


def bootstrap_means(n: int, columns: Sequence[np.ndarray], *, n_boot: int = 1000, seed: int = 0) -> list[np.ndarray]:
    """Means of each column over the same ``n_boot`` resamples of the row indices ``0..n-1``.

    Resampling the rows jointly keeps paired columns (GoldSim and CtxSim of one item) together.
    """
    rng = np.random.Generator(np.random.PCG64(seed))
    idx = rng.integers(0, n, size=(n_boot, n))
    return [np.asarray(col, dtype=np.float64)[idx].mean(axis=1) for col in columns]


def pearson(x: Sequence[float], y: Sequence[float]) -> float | None:
    """Pearson's r; None when undefined (fewer than two points, a constant variable, a NaN or infinite value)."""
    if len(x) != len(y):
        raise ValueError("x and y differ in length")
    if len(x) < 2:
        return None
    a = np.asarray(x, dtype=np.float64)
    b = np.asarray(y, dtype=np.float64)
    da, db = a - a.mean(), b - b.mean()
    denominator = math.sqrt(float(da @ da) * float(db @ db))
    if denominator == 0.0 or not math.isfinite(denominator):
        return None  # a constant variable, or a NaN / infinity among the values (min/max below would hide it)
    return max(-1.0, min(1.0, float(da @ db) / denominator))


def average_ranks(values: Sequence[float]) -> list[float]:
    """1-based ranks, ties sharing the average of the ranks they span."""
    order = sorted(range(len(values)), key=lambda i: values[i])
    ranks = [0.0] * len(values)
    start = 0
    while start < len(order):
        end = start
        while end + 1 < len(order) and values[order[end + 1]] == values[order[start]]:
            end += 1
        rank = (start + end) / 2.0 + 1.0
        for k in range(start, end + 1):
            ranks[order[k]] = rank
        start = end + 1
    return ranks


def spearman(x: Sequence[float], y: Sequence[float]) -> float | None:
    """Spearman's rho: Pearson's r of the average ranks; None when undefined (as ``pearson``; a NaN would get a
    rank of its own, so any non-finite value gives None)."""
    if len(x) != len(y):
        raise ValueError("x and y differ in length")
    if not all(math.isfinite(v) for v in [*x, *y]):
        return None
    return pearson(average_ranks(x), average_ranks(y))


# --------------------------------------------------------------------------------------------------------------
# Exportable estimates: a value with its interval, or None with the reason (never NaN or an infinity).


@dataclass(frozen=True)
class Estimate:
    """A figure ready to export: ``value`` with its interval ``[low, high]`` over ``n`` units.

    Where a figure or its interval is undefined the field is None and ``reason`` says why, so that nothing
    exported is NaN or an infinity (which standard JSON cannot carry)."""

    value: float | None
    low: float | None = None
    high: float | None = None
    n: int = 0
    reason: str | None = None

    def __post_init__(self) -> None:
        # A NaN or an infinity handed in by mistake becomes None, with the reason, rather than reach an export.
        for name in ("value", "low", "high"):
            raw = getattr(self, name)
            if raw is not None and not math.isfinite(raw):
                object.__setattr__(self, name, None)
                if self.reason is None:
                    object.__setattr__(self, "reason", f"{name} was not finite ({raw})")

    def as_json(self) -> dict[str, float | int | str | None]:
        return {"value": self.value, "low": self.low, "high": self.high, "n": self.n, "reason": self.reason}


def finite_or_none(value: float | None) -> float | None:
    """``value`` as a float, or None when it is None, NaN or infinite."""
    if value is None or not math.isfinite(value):
        return None
    return float(value)


@dataclass(frozen=True)
class Interval:
    """A percentile bootstrap interval; ``n_undefined`` resamples gave no value (NaN or None) and were left out."""

    low: float
    high: float
    n_boot: int
    n_undefined: int


def bootstrap_statistic(
    n: int,
    statistic: Callable[[np.ndarray], float | None],
    *,
    n_boot: int = 1000,
    seed: int = 0,
    level: float = 0.95,
) -> Interval | None:
    """Percentile bootstrap interval of any statistic of ``n`` units (Efron & Tibshirani 1993, ch. 13).

    Each of ``n_boot`` resamples draws ``n`` unit indices with replacement (numpy PCG64, ``seed``) and calls
    ``statistic(indices)``. Resamples where the statistic is undefined (None, NaN, infinite: e.g. a ratio whose
    denominator vanished in that resample) are left out and counted in ``n_undefined``; the interval is the
    ``(1 - level) / 2`` and ``(1 + level) / 2`` quantiles of the rest. None when no resample gave a value."""
    if n < 1:
        raise ValueError("bootstrap of no units")
    if not 0.0 < level < 1.0:
        raise ValueError("level must lie in (0, 1)")
    rng = np.random.Generator(np.random.PCG64(seed))
    values: list[float] = []
    for _ in range(n_boot):
        value = finite_or_none(statistic(rng.integers(0, n, size=n)))
        if value is not None:
            values.append(value)
    if not values:
        return None
    tail = (1.0 - level) / 2.0
    lo, hi = np.quantile(np.asarray(values), [tail, 1.0 - tail])
    return Interval(float(lo), float(hi), n_boot, n_boot - len(values))


# --------------------------------------------------------------------------------------------------------------
# Krippendorff's alpha.

AlphaLevel = Literal["nominal", "ordinal", "interval"]
ALPHA_LEVELS: tuple[AlphaLevel, ...] = ("nominal", "ordinal", "interval")


def krippendorff_alpha(reliability_data: Sequence[Sequence[Any]], level: str) -> float:
    """Krippendorff's alpha, ``1 - D_o / D_e`` (Krippendorff 2011, "Computing Krippendorff's Alpha-Reliability").

    ``reliability_data`` holds one list per rater over the same units, None where that rater gave no value.
    Units with fewer than two values are not pairable and are dropped. From the pairable units the coincidence
    matrix is ``o_ck = sum_u (ordered pairs of values (c, k) from different raters in u) / (m_u - 1)``, with
    ``m_u`` the number of values in unit u; ``n_c = sum_k o_ck`` and ``n = sum_c n_c``. Then
    ``alpha = 1 - (n - 1) * sum_ck o_ck d2_ck / sum_ck n_c n_k d2_ck`` with the difference function of ``level``:

    - ``"nominal"``: ``d2 = 0`` if ``c == k`` else 1 (any hashable values);
    - ``"ordinal"``: ``d2 = (sum_{g=c..k} n_g - (n_c + n_k) / 2)^2`` over the values in their sort order;
    - ``"interval"``: ``d2 = (c - k)^2`` (numbers).

    When every pairable value is the same, the expected disagreement is 0 and alpha is 0/0: NaN is returned
    (``scoring.reliability.alpha_estimate`` turns it into None with a reason for export). ``ValueError`` on an
    unknown level, raters of unequal length, no pairable unit, NaN values, or non-numeric values at the interval
    level."""
    if level not in ALPHA_LEVELS:
        raise ValueError(f"unknown level {level!r}: expected one of {ALPHA_LEVELS}")
    units = _pairable_units(reliability_data)
    if not units:
        raise ValueError("no pairable unit: every unit has fewer than two values")
    coincidences: dict[tuple[Any, Any], float] = defaultdict(float)
    for counts in units:
        m = sum(counts.values())
        for c, n_c in counts.items():
            for k, n_k in counts.items():
                pairs = n_c * (n_k - 1) if c == k else n_c * n_k
                if pairs:
                    coincidences[(c, k)] += pairs / (m - 1)
    totals: dict[Any, float] = defaultdict(float)
    for (c, _k), o in coincidences.items():
        totals[c] += o
    n = math.fsum(totals.values())
    delta = _difference_function(level, totals)
    observed = math.fsum(o * delta(c, k) for (c, k), o in coincidences.items())
    expected = math.fsum(totals[c] * totals[k] * delta(c, k) for c in totals for k in totals)
    if expected == 0.0:
        return math.nan
    return 1.0 - (n - 1.0) * observed / expected


def _pairable_units(reliability_data: Sequence[Sequence[Any]]) -> list[Counter[Any]]:
    lengths = {len(rater) for rater in reliability_data}
    if len(lengths) > 1:
        raise ValueError("every rater must give one entry (a value or None) per unit")
    units = []
    for column in zip(*reliability_data, strict=True):
        values = [v for v in column if v is not None]
        for v in values:
            if isinstance(v, float) and math.isnan(v):
                raise ValueError("NaN is not a value: use None for a missing value")
        if len(values) >= 2:
            units.append(Counter(values))
    return units


def _difference_function(level: str, totals: Mapping[Any, float]) -> Callable[[Any, Any], float]:
    if level == "nominal":
        return lambda c, k: 0.0 if c == k else 1.0
    if level == "interval":
        for v in totals:
            if isinstance(v, bool) or not isinstance(v, numbers.Real):
                raise ValueError(f"interval alpha needs numbers, got {v!r}")
        return lambda c, k: float(c - k) ** 2
    try:
        order = sorted(totals)
    except TypeError as exc:
        raise ValueError("ordinal alpha needs values that can be sorted") from exc
    cumulative = dict(zip(order, itertools.accumulate(totals[v] for v in order), strict=True))

    def ordinal(c: Any, k: Any) -> float:
        if c == k:
            return 0.0
        lo, hi = (c, k) if c < k else (k, c)
        # sum_{g=lo..hi} n_g, from the running totals.
        span = cumulative[hi] - cumulative[lo] + totals[lo]
        return (span - (totals[c] + totals[k]) / 2.0) ** 2

    return ordinal


# --------------------------------------------------------------------------------------------------------------
# Correlations with intervals.


def correlation_estimate(
    x: Sequence[float], y: Sequence[float], *, method: Literal["pearson", "spearman"] = "pearson", level: float = 0.95
) -> Estimate:
    """Pearson's r or Spearman's rho with a Fisher z interval.

    ``z = atanh(r)`` is roughly normal with standard error ``1 / sqrt(n - 3)`` for Pearson (Fisher 1921) and
    ``sqrt(1.06 / (n - 3))`` for Spearman (Fieller, Hartley & Pearson 1957); the interval is
    ``tanh(z -+ q * se)`` with ``q`` the normal quantile of ``(1 + level) / 2``. The value is None when r is
    undefined (fewer than two points, a constant variable, a NaN among the values); the interval is None below
    four points. At
    ``|r| = 1`` the interval collapses to ``[r, r]``."""
    if method not in ("pearson", "spearman"):
        raise ValueError("method must be 'pearson' or 'spearman'")
    r = finite_or_none(pearson(x, y) if method == "pearson" else spearman(x, y))
    n = len(x)
    if r is None:
        return Estimate(None, n=n, reason="undefined: fewer than two points, a constant variable or a NaN value")
    if n < 4:
        return Estimate(r, n=n, reason="no interval below four points (Fisher z needs n - 3 > 0)")
    if abs(r) >= 1.0:
        return Estimate(r, r, r, n=n)
    se = math.sqrt((1.0 if method == "pearson" else 1.06) / (n - 3))
    q = NormalDist().inv_cdf((1.0 + level) / 2.0)
    z = math.atanh(r)
    return Estimate(r, math.tanh(z - q * se), math.tanh(z + q * se), n=n)


# --------------------------------------------------------------------------------------------------------------
# Paired comparison of two models on shared items.


def binomial_two_sided(successes: int, trials: int) -> float:
    """Exact two-sided p-value of ``successes`` in ``trials`` under p = 1/2:
    ``min(1, 2 * P(X <= min(s, t - s)))``. One when there are no trials."""
    if trials == 0:
        return 1.0
    if not 0 <= successes <= trials:
        raise ValueError("successes must lie in 0..trials")
    tail = sum(math.comb(trials, i) for i in range(min(successes, trials - successes) + 1))
    return min(1.0, 2.0 * tail / 2.0**trials)


def mcnemar_exact(only_a: int, only_b: int) -> float:
    """McNemar's exact test (McNemar 1947; exact binomial form): of the discordant pairs, ``only_a`` items are
    right for A only and ``only_b`` for B only; under no difference each is a fair coin. Two-sided p-value."""
    return binomial_two_sided(only_a, only_a + only_b)


def sign_test(differences: Sequence[float]) -> float:
    """Exact two-sided sign test of paired differences: zeros are dropped, positives counted against a fair coin."""
    positive = sum(1 for d in differences if d > 0)
    negative = sum(1 for d in differences if d < 0)
    return binomial_two_sided(positive, positive + negative)


@dataclass(frozen=True)
class PairedComparison:
    """Model A against model B on the items both answered.

    ``difference`` is mean(A) - mean(B) over the shared items with its paired bootstrap interval; ``test`` is
    ``"mcnemar_exact"`` when every score is 0 or 1, else ``"sign_test"``; ``a_higher`` / ``b_higher`` count the
    items where one scored above the other (the discordant pairs); ``only_a`` / ``only_b`` the items one side
    lacks, which are left out."""

    n_shared: int
    mean_a: float | None
    mean_b: float | None
    difference: Estimate
    p_value: float | None
    test: str
    a_higher: int
    b_higher: int
    only_a: int
    only_b: int


def paired_comparison(
    a: Mapping[K, float | None],
    b: Mapping[K, float | None],
    *,
    n_boot: int = 1000,
    seed: int = 0,
    level: float = 0.95,
) -> PairedComparison:
    """Compare two models' per-item scores (item id -> score) on the items both have.

    The difference of means is the mean of the per-item differences; its interval resamples the shared items
    (``bootstrap_ci`` of the differences, so each item keeps both of its scores). The p-value is McNemar's exact
    test for binary scores (0/1: LAV, followed-the-context) and the exact sign test otherwise (graded scores);
    both only look at the items where the two differ. A score that is None or not finite counts as missing; an
    item is shared when both models have a score for it. No shared item: every figure None."""
    given_a = {key: f for key, v in a.items() if (f := finite_or_none(v)) is not None}
    given_b = {key: f for key, v in b.items() if (f := finite_or_none(v)) is not None}
    shared = [key for key in given_a if key in given_b]
    only_a, only_b = len(given_a) - len(shared), len(given_b) - len(shared)
    scores_a = [given_a[key] for key in shared]
    scores_b = [given_b[key] for key in shared]
    binary = all(v in (0.0, 1.0) for v in [*scores_a, *scores_b])
    test = "mcnemar_exact" if binary else "sign_test"
    if not shared:
        return PairedComparison(
            0, None, None, Estimate(None, reason="no shared item"), None, test, 0, 0, only_a, only_b
        )
    differences = [x - y for x, y in zip(scores_a, scores_b, strict=True)]
    a_higher = sum(1 for d in differences if d > 0)
    b_higher = sum(1 for d in differences if d < 0)
    lo, hi = bootstrap_ci(differences, n_boot=n_boot, seed=seed, level=level)
    return PairedComparison(
        n_shared=len(shared),
        mean_a=mean(scores_a),
        mean_b=mean(scores_b),
        difference=Estimate(mean(differences), lo, hi, n=len(shared)),
        p_value=mcnemar_exact(a_higher, b_higher) if binary else sign_test(differences),
        test=test,
        a_higher=a_higher,
        b_higher=b_higher,
        only_a=only_a,
        only_b=only_b,
    )
