"""A panel of judges, in plain Python (no Django): any number of evaluators per run, one panel verdict per item.

- LAV (binary valid / not valid): the majority of the judges that gave a verdict, with an explicit tie rule;
- Acc and Cm (the 0 / 0.25 / 0.5 / 0.75 / 1 scale): the mean or the median of the judges' scores;
- inter-judge agreement: Krippendorff's alpha per metric at the metric's level (nominal for LAV, ordinal for
  Acc and Cm), with a bootstrap interval over items;
- the items where the judges split, for review.

The rules chosen are a ``PanelSpec``, whose ``as_manifest()`` goes into the run's manifest. Definitions:
docs/conflict_and_judges.md.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal, TypeVar

from scoring.reliability import alpha_estimate
from scoring.stats import Estimate

JudgeT = TypeVar("JudgeT", bound=Hashable)
ItemT = TypeVar("ItemT", bound=Hashable)

PANEL_VERSION = "panel-1"
METRIC_LEVELS: dict[str, Literal["nominal", "ordinal"]] = {"lav": "nominal", "acc": "ordinal", "cm": "ordinal"}
TieRule = Literal["invalid", "valid", "unresolved"]
GradedRule = Literal["mean", "median"]


@dataclass(frozen=True)
class PanelSpec:
    """How the panel combines its judges.

    ``lav_tie``: what an even split of LAV verdicts gives: ``"invalid"`` (default: a tie does not establish
    that the answer is valid), ``"valid"``, or ``"unresolved"`` (no panel verdict; the item goes to review).
    ``graded``: ``"mean"`` or ``"median"`` of the Acc / Cm scores (the median of an even number of scores is the
    mean of the middle two, so it may fall between two steps of the scale). ``graded_split``: a graded item
    counts as split when its highest and lowest score lie at least this far apart (default 0.5, two steps)."""

    lav_tie: TieRule = "invalid"
    graded: GradedRule = "mean"
    graded_split: float = 0.5

    def __post_init__(self) -> None:
        if self.lav_tie not in ("invalid", "valid", "unresolved"):
            raise ValueError("lav_tie must be 'invalid', 'valid' or 'unresolved'")
        if self.graded not in ("mean", "median"):
            raise ValueError("graded must be 'mean' or 'median'")
        if not self.graded_split > 0:
            raise ValueError("graded_split must be positive")

    @classmethod
    def from_options(cls, options: Mapping[str, Any] | None) -> PanelSpec:
        """The spec of a run's ``panel`` option (``RunSpec.panel``: lav, lav_tie, graded, graded_split; None or a
        missing key: the default)."""
        options = options or {}
        if options.get("lav", "majority") != "majority":
            raise ValueError("lav must be 'majority'")
        return cls(
            lav_tie=options.get("lav_tie", "invalid"),
            graded=options.get("graded", "mean"),
            graded_split=float(options.get("graded_split", 0.5)),
        )

    def as_manifest(self) -> dict[str, Any]:
        """The rules as recorded in a run's manifest."""
        graded = {"rule": self.graded, "split_when_range_at_least": self.graded_split, "alpha_level": "ordinal"}
        return {
            "version": PANEL_VERSION,
            "lav": {"rule": "majority", "tie": self.lav_tie, "split": "not unanimous", "alpha_level": "nominal"},
            "acc": graded,
            "cm": dict(graded),
        }


def majority(verdicts: Sequence[bool | int], tie: TieRule = "invalid") -> tuple[int | None, bool]:
    """The majority of binary verdicts (truthy = valid) and whether it was a tie. A tie gives 0 for
    ``"invalid"``, 1 for ``"valid"``, None for ``"unresolved"``; no verdict at all gives (None, False)."""
    if not verdicts:
        return None, False
    valid = sum(1 for v in verdicts if v)
    invalid = len(verdicts) - valid
    if valid != invalid:
        return int(valid > invalid), False
    return {"invalid": 0, "valid": 1, "unresolved": None}[tie], True


def central(scores: Sequence[float], how: GradedRule = "mean") -> float | None:
    """The mean or the median of graded scores; None when there is none."""
    if not scores:
        return None
    values = [float(s) for s in scores]
    return statistics.fmean(values) if how == "mean" else float(statistics.median(values))


@dataclass(frozen=True)
class PanelItem:
    """One item: each judge's value (None: no verdict), the panel's verdict, and whether the judges split
    (``tie``: LAV only, an even split)."""

    item: Hashable
    values: dict[Hashable, Any]
    verdict: float | None
    n_judges: int
    split: bool
    tie: bool


@dataclass(frozen=True)
class PanelMetric:
    """A panel's result on one metric: per-item verdicts, Krippendorff's alpha among the judges at the
    metric's level, the items where they split, and the share (LAV) or mean (Acc, Cm) of the panel verdicts."""

    metric: str
    level: str
    rule: str
    items: tuple[PanelItem, ...]
    alpha: Estimate
    splits: tuple[Hashable, ...]
    panel_mean: float | None


def panel_metric(
    metric: str,
    scores: Mapping[JudgeT, Mapping[ItemT, Any]],
    spec: PanelSpec | None = None,
    *,
    n_boot: int = 1000,
    seed: int = 0,
    ci: float = 0.95,
) -> PanelMetric:
    """Combine the judges' scores on ``metric`` (``"lav"``, ``"acc"`` or ``"cm"``; ``scores``: judge -> item ->
    value; None, NaN or absent where a judge gave nothing).

    LAV: ``majority`` with ``spec.lav_tie``; split = the judges that answered are not unanimous. Acc / Cm:
    ``central`` with ``spec.graded``; split = highest minus lowest score >= ``spec.graded_split``. An item with
    fewer than two verdicts cannot split. Alpha: ``krippendorff_alpha`` over one list per judge (nominal for LAV,
    ordinal for Acc / Cm), with a bootstrap interval over items; None, with the reason, when it is undefined
    (fewer than two judges on any item, or every verdict the same)."""
    spec = spec or PanelSpec()
    if metric not in METRIC_LEVELS:
        raise ValueError(f"unknown metric {metric!r}: expected one of {tuple(METRIC_LEVELS)}")
    level = METRIC_LEVELS[metric]
    judges = list(scores)
    items: list[ItemT] = list(dict.fromkeys(item for judge in judges for item in scores[judge]))

    def value(judge: JudgeT, item: ItemT) -> Any:
        v = scores[judge].get(item)
        if v is None or (isinstance(v, float) and math.isnan(v)):
            return None
        return int(bool(v)) if level == "nominal" else float(v)

    rows: list[PanelItem] = []
    for item in items:
        values: dict[Hashable, Any] = {judge: value(judge, item) for judge in judges}
        given = [v for v in values.values() if v is not None]
        verdict: float | int | None
        if level == "nominal":
            verdict, tie = majority(given, spec.lav_tie)
            split = len(set(given)) > 1
        else:
            verdict, tie = central(given, spec.graded), False
            split = len(given) >= 2 and max(given) - min(given) >= spec.graded_split - 1e-12
        rows.append(PanelItem(item, values, None if verdict is None else float(verdict), len(given), split, tie))
    data = [[row.values[judge] for row in rows] for judge in judges]
    alpha = alpha_estimate(data, level, n_boot=n_boot, seed=seed, ci=ci) if rows else Estimate(None, reason="no item")
    verdicts = [row.verdict for row in rows if row.verdict is not None]
    return PanelMetric(
        metric=metric,
        level=level,
        rule="majority" if level == "nominal" else spec.graded,
        items=tuple(rows),
        alpha=alpha,
        splits=tuple(row.item for row in rows if row.split),
        panel_mean=statistics.fmean(verdicts) if verdicts else None,
    )
