"""CUS, the contextual understanding score (Arumugam et al., ICML 2026).

Per item ``CUS = 2 GoldSim CtxSim / (GoldSim + CtxSim)`` with GoldSim = S3KG(answer KG, gold KG) and
CtxSim = S3KG(answer KG, context KG); a model's CUS is the mean over its items, reported here with a 95 %
percentile bootstrap interval (items resampled jointly for the three figures).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypedDict

import numpy as np

from scoring.stats import bootstrap_means, mean


class Summary(TypedDict):
    mean: float | None
    lo: float | None
    hi: float | None


class CUSAggregate(TypedDict):
    n: int
    goldsim: Summary
    ctxsim: Summary
    cus: Summary


def _no_summary() -> Summary:
    return {"mean": None, "lo": None, "hi": None}


def cus_item(goldsim: float, ctxsim: float) -> float:
    """The harmonic mean of GoldSim and CtxSim; 0.0 when both are 0."""
    total = goldsim + ctxsim
    return 0.0 if total <= 0.0 else 2.0 * goldsim * ctxsim / total


def aggregate_cus(
    items: Sequence[tuple[float, float]], *, seed: int = 0, n_boot: int = 1000, level: float = 0.95
) -> CUSAggregate:
    """Means and bootstrap intervals of GoldSim, CtxSim and per-item CUS over ``(goldsim, ctxsim)`` items.

    No items gives ``n = 0`` and ``None`` everywhere; one item gives an interval of width zero.
    """
    n = len(items)
    if n == 0:
        return {"n": 0, "goldsim": _no_summary(), "ctxsim": _no_summary(), "cus": _no_summary()}
    gold = np.array([g for g, _ in items], dtype=np.float64)
    ctx = np.array([c for _, c in items], dtype=np.float64)
    cus = np.array([cus_item(g, c) for g, c in items], dtype=np.float64)
    tail = (1.0 - level) / 2.0
    boot = bootstrap_means(n, [gold, ctx, cus], n_boot=n_boot, seed=seed)

    def summary(values: np.ndarray, means: np.ndarray) -> Summary:
        lo, hi = np.quantile(means, [tail, 1.0 - tail]) if n > 1 else (values[0], values[0])
        return {"mean": mean(values.tolist()), "lo": float(lo), "hi": float(hi)}

    return {
        "n": n,
        "goldsim": summary(gold, boot[0]),
        "ctxsim": summary(ctx, boot[1]),
        "cus": summary(cus, boot[2]),
    }
