"""The alpha sweep of the similarity benchmark: its method names, and the paper's published sweep beside it.

alpha weights the structural (WL) score, ``alpha S_WL + (1 - alpha) S_SBERT`` (``scoring.s3kg.ALPHA_WEIGHTS``):
the convention of the S3KG authors' code and of every sweep they published. Sweep results are named
``<variant>@alpha_wl=<alpha>`` so that a stored name says which score alpha weights. Names of the form
``<variant>@alpha=<alpha>`` were written before (similarity-benchmark@1), when the paper's variants put alpha on
the semantic score as the text's Eq. 2 does; they are read back on the same axis, flipped (``1 - alpha``), and
marked as such. Plain Python: no Django.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

# 0.0..1.0 in steps of 0.1: the paper's alpha sweep (S3KG §4.1 and Appendix B).
SWEEP_ALPHAS = tuple(round(0.1 * i, 1) for i in range(11))

_NAME = re.compile(r"^(?P<base>[\w.-]+)@(?P<axis>alpha_wl|alpha)=(?P<alpha>[0-9]+(?:\.[0-9]+)?)$")
# The one variant whose alpha always weighted the kernel, legacy names included.
_ALWAYS_ON_WL = frozenset({"s3kg_reference"})

# Paper S (Arumugam et al.), Appendix B, Table 4: S3KG alpha sweep on the short-text sets, F1 / AUROC at
# alpha = 0.0, 0.1, ..., 1.0, alpha on the structural score (the authors' code; alpha = 1 is the kernel alone).
PAPER_TABLE4: dict[str, dict[str, tuple[float, ...]]] = {
    "MRPC": {
        "f1": (0.676, 0.681, 0.683, 0.692, 0.680, 0.680, 0.681, 0.688, 0.684, 0.683, 0.681),
        "auroc": (0.654, 0.664, 0.669, 0.673, 0.674, 0.675, 0.674, 0.674, 0.672, 0.671, 0.671),
    },
    "PAWS-Wiki": {
        "f1": (0.694, 0.745, 0.760, 0.764, 0.764, 0.766, 0.764, 0.764, 0.764, 0.764, 0.764),
        "auroc": (0.739, 0.781, 0.790, 0.793, 0.795, 0.795, 0.795, 0.795, 0.795, 0.795, 0.731),
    },
    "STS12": {
        "f1": (0.783, 0.786, 0.780, 0.780, 0.780, 0.775, 0.768, 0.764, 0.762, 0.756, 0.756),
        "auroc": (0.828, 0.834, 0.834, 0.831, 0.827, 0.824, 0.820, 0.815, 0.810, 0.805, 0.790),
    },
}


@dataclass(frozen=True)
class SweepPoint:
    """One result of a sweep on the structural-weight axis; ``flipped`` when read from a legacy Eq. 2 name."""

    base: str
    alpha_wl: float
    flipped: bool


def sweep_method_name(variant: str, alpha: float) -> str:
    """``s3kg_directed@alpha_wl=0.3``: alpha is the weight of the structural score."""
    return f"{variant}@alpha_wl={alpha:.1f}"


def parse_sweep_method(name: str) -> SweepPoint | None:
    """The variant and the structural weight of a sweep result's method name; None for any other method."""
    match = _NAME.match(name)
    if match is None:
        return None
    alpha = float(match["alpha"])
    if not 0.0 <= alpha <= 1.0:
        return None
    if match["axis"] == "alpha" and match["base"] not in _ALWAYS_ON_WL:
        return SweepPoint(match["base"], round(1.0 - alpha, 10), True)
    return SweepPoint(match["base"], alpha, False)


def sweep_curves(results: Mapping[str, float | None]) -> dict[tuple[str, bool], list[tuple[float, float]]]:
    """{method: value} -> {(variant, flipped): [(alpha on the structural score, value)] sorted by alpha}.

    ``flipped`` marks a legacy curve, whose names put alpha on the semantic score (read here as ``1 - alpha``)."""
    curves: dict[tuple[str, bool], list[tuple[float, float]]] = {}
    for method, value in results.items():
        point = parse_sweep_method(method)
        if point is None or value is None:
            continue
        curves.setdefault((point.base, point.flipped), []).append((point.alpha_wl, value))
    return {key: sorted(points) for key, points in sorted(curves.items())}


def paper_table4_curves(metric: str) -> dict[str, list[tuple[float, float]]]:
    """The paper's Table 4 as curves on the same axis: {"paper Table 4, MRPC": [(alpha, value)], ...}."""
    return {
        f"paper Table 4, {name}": list(zip(SWEEP_ALPHAS, figures[metric], strict=True))
        for name, figures in PAPER_TABLE4.items()
    }
