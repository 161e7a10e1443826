"""A run's judges as a panel (read side): per candidate model, condition and temperature, the panel verdict of
each answer on LAV, Acc and Cm from every evaluator's scores, Krippendorff's alpha among the judges per metric
(nominal for LAV, ordinal for Acc / Cm) with its interval, and the answers where the judges split.

The rules are the run's ``panel`` option (``scoring.panel.PanelSpec.from_options``). A judge's score counts only
when its status is ok: an unparseable, failed or skipped score is a missing value, never a zero. Definitions:
docs/conflict_and_judges.md, section 3."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from typing import Any

from django.urls import reverse

from evalplatform.runs.models import Run
from scoring.models import GenerationScore, ScoreStatus
from scoring.panel import METRIC_LEVELS, PanelMetric, PanelSpec, panel_metric

PANEL_METRICS = tuple(METRIC_LEVELS)  # lav, acc, cm
GroupKey = tuple[str, str, float]  # model, condition, temperature


@dataclass(frozen=True)
class PanelGroup:
    """The panel on one candidate model, condition and temperature: one ``PanelMetric`` per metric scored."""

    model: str
    condition: str
    temperature: float
    judges: tuple[str, ...]
    metrics: dict[str, PanelMetric]


def run_panel_spec(run: Run) -> PanelSpec:
    return PanelSpec.from_options((run.spec or {}).get("panel"))


def judge_scores(run: Run) -> dict[tuple[GroupKey, str], dict[str, dict[int, float | None]]]:
    """(group, metric) -> judge -> generation id -> value (None where the judge's score is not ok)."""
    rows = (
        GenerationScore.objects.filter(generation__run=run, metric__in=PANEL_METRICS, evaluator__isnull=False)
        .order_by("generation_id", "scorer")
        .values_list(
            "generation_id",
            "generation__model__name",
            "generation__condition",
            "generation__temperature",
            "scorer",
            "metric",
            "status",
            "value",
        )
    )
    out: dict[tuple[GroupKey, str], dict[str, dict[int, float | None]]] = defaultdict(lambda: defaultdict(dict))
    for gen_id, model, condition, temperature, scorer, metric, status, value in rows:
        ok = status == ScoreStatus.OK and value is not None
        out[((model, condition, float(temperature)), metric)][scorer][gen_id] = float(value) if ok else None  # type: ignore[arg-type]
    return out


def panel_results(run: Run, *, n_boot: int = 1000, seed: int = 0) -> list[PanelGroup]:
    """The panel of the run's evaluators, per candidate model, condition and temperature (sorted). Judges are
    ordered as the run's spec names them (then any other scorer found); every judge listed in a group appears in
    every metric's reliability data, with None on the answers it did not score."""
    spec = run_panel_spec(run)
    named = list((run.spec or {}).get("evaluators", []))
    scores = judge_scores(run)
    groups: dict[GroupKey, dict[str, PanelMetric]] = defaultdict(dict)
    judges_of: dict[GroupKey, set[str]] = defaultdict(set)
    for (group, _metric), by_judge in scores.items():
        judges_of[group] |= set(by_judge)
    for (group, metric), by_judge in sorted(scores.items()):
        order = sorted(judges_of[group], key=lambda j: (named.index(j) if j in named else len(named), j))
        data = {judge: dict(by_judge.get(judge, {})) for judge in order}
        groups[group][metric] = panel_metric(metric, data, spec, n_boot=n_boot, seed=seed)
    out = []
    for group in sorted(groups):
        order = sorted(judges_of[group], key=lambda j: (named.index(j) if j in named else len(named), j))
        metrics = {m: groups[group][m] for m in PANEL_METRICS if m in groups[group]}
        out.append(PanelGroup(group[0], group[1], group[2], tuple(order), metrics))
    return out


def panel_verdicts(groups: list[PanelGroup]) -> dict[str, dict[int, float | None]]:
    """metric -> generation id -> the panel's verdict (None: no verdict), over every group."""
    out: dict[str, dict[int, float | None]] = defaultdict(dict)
    for group in groups:
        for metric, result in group.metrics.items():
            for item in result.items:
                out[metric][int(item.item)] = item.verdict  # type: ignore[call-overload]
    return dict(out)


def panel_metric_json(result: PanelMetric, run_id: int) -> dict[str, Any]:
    return {
        "metric": result.metric,
        "level": result.level,
        "rule": result.rule,
        "alpha": result.alpha.as_json(),
        "panel_mean": result.panel_mean,
        "n_items": len(result.items),
        "splits": list(result.splits),
        "split_urls": [reverse("runs:generation", args=[run_id, g]) for g in result.splits],
        "items": [
            {
                "generation": item.item,
                "values": dict(item.values),
                "verdict": item.verdict,
                "n_judges": item.n_judges,
                "split": item.split,
                "tie": item.tie,
            }
            for item in result.items
        ],
    }


def panel_results_json(run: Run, groups: list[PanelGroup] | None = None) -> dict[str, Any]:
    """The panel as the API gives it: the rules (as in the manifest) and one entry per group."""
    groups = panel_results(run) if groups is None else groups
    return {
        "rules": run_panel_spec(run).as_manifest(),
        "groups": [
            {
                "model": g.model,
                "condition": g.condition,
                "temperature": g.temperature,
                "judges": list(g.judges),
                "metrics": {m: panel_metric_json(r, run.pk) for m, r in g.metrics.items()},
            }
            for g in groups
        ],
    }
