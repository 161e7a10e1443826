"""Paper-reproduction mode (issue 17, item 6): run a finished run again from its fingerprint, and say which of its
scores moved.

``reproduce_launch`` launches a new run on the very dataset version the first one used, with its spec (models,
evaluators, temperatures, conditions, samples, seed, prompts, AC convention, metrics), the response cache off
unless asked for, and records in the new run's manifest which run it reproduces. ``moved_scores`` pairs the two
runs cell by cell (question, model, temperature, condition, sample) and metric and scorer, and lists every score
whose value or status differs: old, new and their difference. ``fingerprint_differences`` says which parts of
the two fingerprints differ (the code version when it changed in between, an endpoint's settings...)."""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from evalplatform.roles import AnyUser
from evalplatform.runs.fingerprint import run_fingerprint
from evalplatform.runs.launch import run_launch
from evalplatform.runs.models import Run
from scoring.models import GenerationScore

# Two values closer than this are the same score (a float written and read back through the database).
MOVED_TOLERANCE = 1e-9
CellKey = tuple[str, str, float, str, int, str, str]  # question, model, temperature, condition, sample, scorer, metric


class ReproduceError(ValueError):
    """A run that cannot be reproduced; ``field`` names what to change."""

    def __init__(self, field_name: str, message: str):
        self.field = field_name
        super().__init__(message)


def reproduce_launch(*, run: Run, use_cache: bool = False, actor: AnyUser | None = None, enqueue: bool = True) -> Run:
    """A new run with the finished run's spec on its dataset version (the cache off unless ``use_cache``)."""
    if run.kind not in (Run.Kind.CDKE, Run.Kind.KG):
        raise ReproduceError("run", f"a {run.kind} run is not reproduced from here")
    if run.status != Run.Status.DONE:
        raise ReproduceError("run", f"run {run.pk} is {run.status}: reproduce a finished run")
    spec = dict(run.spec) | {"use_cache": use_cache}
    return run_launch(
        dataset=run.dataset,
        spec=spec,
        actor=actor,
        budget_usd=run.budget_usd,
        enqueue=enqueue,
        kind=run.kind,
        reproduces=run,
    )


@dataclass(frozen=True)
class MovedScore:
    question: str
    model: str
    temperature: float
    condition: str
    sample_index: int
    scorer: str
    metric: str
    old: float | None
    new: float | None
    old_status: str | None
    new_status: str | None

    @property
    def delta(self) -> float | None:
        return None if self.old is None or self.new is None else self.new - self.old

    def as_json(self) -> dict[str, Any]:
        return {
            "question": self.question,
            "model": self.model,
            "temperature": self.temperature,
            "condition": self.condition,
            "sample_index": self.sample_index,
            "scorer": self.scorer,
            "metric": self.metric,
            "old": self.old,
            "new": self.new,
            "delta": self.delta,
            "old_status": self.old_status,
            "new_status": self.new_status,
        }


@dataclass(frozen=True)
class MovedReport:
    first: int
    second: int
    compared: int
    moved: list[MovedScore]
    only_first: int
    only_second: int
    fingerprint_changes: list[str]

    def summary(self) -> dict[str, Any]:
        by_metric: dict[str, int] = {}
        for m in self.moved:
            by_metric[m.metric] = by_metric.get(m.metric, 0) + 1
        return {
            "first": self.first,
            "second": self.second,
            "compared": self.compared,
            "moved": len(self.moved),
            "moved_by_metric": dict(sorted(by_metric.items())),
            "only_in_first": self.only_first,
            "only_in_second": self.only_second,
            "fingerprint_changes": self.fingerprint_changes,
        }

    def as_json(self) -> dict[str, Any]:
        return self.summary() | {"scores": [m.as_json() for m in self.moved]}


def _scores(run: Run) -> dict[CellKey, tuple[float | None, str]]:
    rows = GenerationScore.objects.filter(generation__run=run).values_list(
        "generation__question__key",
        "generation__model__name",
        "generation__temperature",
        "generation__condition",
        "generation__sample_index",
        "scorer",
        "metric",
        "value",
        "status",
    )
    return {(q, m, t, c, s, scorer, metric): (value, status) for q, m, t, c, s, scorer, metric, value, status in rows}


def _moved(old: tuple[float | None, str], new: tuple[float | None, str]) -> bool:
    if old[1] != new[1]:
        return True
    if old[0] is None or new[0] is None:
        return old[0] is not new[0]
    return not math.isclose(old[0], new[0], rel_tol=0.0, abs_tol=MOVED_TOLERANCE)


def _flatten(value: Any, prefix: str = "") -> Iterator[tuple[str, Any]]:
    if isinstance(value, dict):
        for key in sorted(value):
            yield from _flatten(value[key], f"{prefix}.{key}" if prefix else str(key))
    else:
        yield prefix, value


def fingerprint_differences(first: dict[str, Any], second: dict[str, Any]) -> list[str]:
    """Each leaf of two fingerprints that differs, as ``path: old -> new`` (the hash itself left out)."""
    a = dict(_flatten({k: v for k, v in first.items() if k not in ("hash", "recorded_at_launch")}))
    b = dict(_flatten({k: v for k, v in second.items() if k not in ("hash", "recorded_at_launch")}))
    return [f"{key}: {a.get(key)!r} -> {b.get(key)!r}" for key in sorted(set(a) | set(b)) if a.get(key) != b.get(key)]


def moved_scores(first: Run, second: Run) -> MovedReport:
    """Every score of ``first`` whose cell, scorer and metric ``second`` also has, with a different value or status."""
    old, new = _scores(first), _scores(second)
    shared = sorted(set(old) & set(new))
    moved = [
        MovedScore(*key, old=old[key][0], new=new[key][0], old_status=old[key][1], new_status=new[key][1])
        for key in shared
        if _moved(old[key], new[key])
    ]
    return MovedReport(
        first=first.pk,
        second=second.pk,
        compared=len(shared),
        moved=moved,
        only_first=len(set(old) - set(new)),
        only_second=len(set(new) - set(old)),
        fingerprint_changes=fingerprint_differences(run_fingerprint(first), run_fingerprint(second)),
    )


def moved_table(report: MovedReport, *, limit: int = 200) -> str:
    """The moved scores as a fixed-width text table (at most ``limit`` lines) and the summary count."""

    def num(x: float | None, status: str | None) -> str:
        return f"{x:.4f}" if x is not None else (status or "-")

    lines = [
        f"{'question':<16} {'model':<12} {'temp':>5} {'condition':<9} {'s':>2} {'scorer':<16} {'metric':<6} "
        f"{'old':>11} {'new':>11} {'delta':>8}"
    ]
    for m in report.moved[:limit]:
        delta = "-" if m.delta is None else f"{m.delta:+.4f}"
        lines.append(
            f"{m.question[:16]:<16} {m.model[:12]:<12} {m.temperature:>5g} {m.condition:<9} {m.sample_index:>2} "
            f"{m.scorer[:16]:<16} {m.metric:<6} {num(m.old, m.old_status):>11} {num(m.new, m.new_status):>11} "
            f"{delta:>8}"
        )
    if len(report.moved) > limit:
        lines.append(f"... and {len(report.moved) - limit} more")
    s = report.summary()
    lines.append(
        f"{s['moved']} of {s['compared']} scores moved"
        + (f" ({', '.join(f'{k} {v}' for k, v in s['moved_by_metric'].items())})" if s["moved_by_metric"] else "")
        + f"; {s['only_in_first']} only in run {report.first}, {s['only_in_second']} only in run {report.second}"
    )
    for change in report.fingerprint_changes:
        lines.append(f"fingerprint changed: {change}")
    return "\n".join(lines)
