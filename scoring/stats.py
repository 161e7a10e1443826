"""Small statistics on plain lists: mean, bootstrap intervals, Pearson and Spearman correlations."""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np


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
    """Pearson's r; None when undefined (fewer than two points or a constant variable)."""
    if len(x) != len(y):
        raise ValueError("x and y differ in length")
    if len(x) < 2:
        return None
    a = np.asarray(x, dtype=np.float64)
    b = np.asarray(y, dtype=np.float64)
    da, db = a - a.mean(), b - b.mean()
    denominator = math.sqrt(float(da @ da) * float(db @ db))
    if denominator == 0.0:
        return None
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
    """Spearman's rho: Pearson's r of the average ranks; None when undefined."""
    if len(x) != len(y):
        raise ValueError("x and y differ in length")
    return pearson(average_ranks(x), average_ranks(y))
