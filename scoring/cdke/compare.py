"""Comparing runs (reads only): two or more runs of one dataset side by side, aligned by (model, evaluator,
condition, metric), with the difference of the last run from the first, its paired bootstrap interval and a paired
test over the questions both scored; a per-question diff of their answers; and, within one run, the paper's main
effect: divergent − real per model, evaluator and metric.

A question's value in a run is the mean of its scored answers there (over the run's temperatures and samples), so
runs at different temperatures compare question by question. Questions are matched by their key, so runs on two
versions of a dataset compare on the questions the versions share. Only scores that are ok count: an unparseable or
failed verdict is missing on that side (Table 2's LAV counts them as not valid; here they leave the pair out, and
``n`` says how many questions each figure stands on). Every interval and p-value comes from ``scoring.stats``."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from evalplatform.runs.models import Generation, Run
from scoring.cdke.results import TABLE_METRICS
from scoring.models import GenerationScore, ScoreStatus
from scoring.stats import PairedComparison, paired_comparison

RowKey = tuple[str, str, str, str]  # model, evaluator, condition, metric
# The evaluator column of a metric no evaluator scores (ASS is an embedding).
EMBEDDING = "-"
METRIC_ORDER = {m: i for i, m in enumerate(TABLE_METRICS)}
# Most runs one comparison takes, on the page and in the API (each adds a column and a read of its scores).
MAX_COMPARED = 8


@dataclass
class CompareRow:
    model: str
    evaluator: str
    condition: str
    metric: str
    values: list[float | None]
    n: list[int]
    paired: PairedComparison | None = None

    @property
    def delta(self) -> float | None:
        """Last run minus first run, each over its own questions."""
        first, last = self.values[0], self.values[-1]
        return None if first is None or last is None else last - first

    def as_json(self) -> dict[str, Any]:
        paired = self.paired
        return {
            "model": self.model,
            "evaluator": self.evaluator,
            "condition": self.condition,
            "metric": self.metric,
            "values": self.values,
            "n": self.n,
            "delta": self.delta,
            "n_paired": paired.n_shared if paired else 0,
            "paired_delta": paired.difference.value if paired else None,
            "interval": [paired.difference.low, paired.difference.high] if paired else [None, None],
            "p_value": paired.p_value if paired else None,
            "test": paired.test if paired else None,
            "last_higher": paired.a_higher if paired else 0,
            "first_higher": paired.b_higher if paired else 0,
        }


def question_scores(run: Run) -> dict[RowKey, dict[str, float]]:
    """(model, evaluator, condition, metric) -> question key -> mean of the run's ok scores of that question."""
    sums: dict[RowKey, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    rows = GenerationScore.objects.filter(generation__run=run, status=ScoreStatus.OK).values_list(
        "generation__model__name", "scorer", "generation__condition", "metric", "generation__question__key", "value"
    )
    for model, scorer, condition, metric, question, value in rows.iterator():
        evaluator = EMBEDDING if metric == GenerationScore.Metric.ASS else scorer
        sums[(model, evaluator, condition, metric)][question].append(_ok(value))
    return {key: {q: sum(v) / len(v) for q, v in per_q.items()} for key, per_q in sums.items()}


def _ok(value: float | None) -> float:
    """An ok score's value (the database holds one for every ok score: ``score_value_only_when_ok``)."""
    assert value is not None
    return float(value)


def _sort_key(key: RowKey) -> tuple[str, str, str, int]:
    model, evaluator, condition, metric = key
    return (model, evaluator, condition, METRIC_ORDER.get(metric, 99))


def compare_runs(runs: Sequence[Run], *, seed: int = 0) -> list[CompareRow]:
    """One row per (model, evaluator, condition, metric) found in any of the runs, its value in each run (None where
    a run lacks it), and the paired comparison of the last run against the first over their shared questions."""
    if len(runs) < 2:
        raise ValueError("compare two runs or more")
    scores = [question_scores(run) for run in runs]
    keys = sorted({key for per_run in scores for key in per_run}, key=_sort_key)
    rows = []
    for key in keys:
        per_run = [s.get(key, {}) for s in scores]
        values = [sum(q.values()) / len(q) if q else None for q in per_run]
        row = CompareRow(*key, values=values, n=[len(q) for q in per_run])
        if per_run[0] and per_run[-1]:
            row.paired = paired_comparison(per_run[-1], per_run[0], seed=seed)
        rows.append(row)
    return rows


@dataclass
class AnswerCell:
    generation_id: int
    text: str
    status: str
    scores: dict[str, float | None] = field(default_factory=dict)


@dataclass
class QuestionDiff:
    key: str
    question: str
    ground_truth: str
    answers: list[AnswerCell | None]
    spread: float


def answer_diff(
    runs: Sequence[Run], *, model: str, condition: str, metric: str = "ass", evaluator: str | None = None
) -> list[QuestionDiff]:
    """Per question, each run's first answer of ``model`` under ``condition`` (lowest temperature, sample 0) with its
    scores; questions where the runs' ``metric`` differs most come first."""
    cells: list[dict[str, AnswerCell]] = []
    texts: dict[str, tuple[str, str]] = {}
    for run in runs:
        found: dict[str, AnswerCell] = {}
        generations = (
            Generation.objects.filter(run=run, model__name=model, condition=condition)
            .select_related("question")
            .order_by("question__key", "temperature", "sample_index", "pk")
        )
        for g in generations:
            if g.question.key in found:
                continue
            found[g.question.key] = AnswerCell(g.pk, g.text, g.status)
            texts.setdefault(g.question.key, (g.question.text, g.question.ground_truth))
        by_pk = {cell.generation_id: cell for cell in found.values()}
        score_rows = GenerationScore.objects.filter(generation_id__in=list(by_pk)).values_list(
            "generation_id", "scorer", "metric", "value"
        )
        for generation_id, scorer, name, value in score_rows:
            if name == GenerationScore.Metric.ASS or evaluator in (None, scorer):
                by_pk[generation_id].scores.setdefault(name, value)
        cells.append(found)
    diffs = []
    for key in sorted(texts):
        answers = [found.get(key) for found in cells]
        values = [v for a in answers if a is not None and (v := a.scores.get(metric)) is not None]
        spread = (max(values) - min(values)) if len(values) > 1 else 0.0
        diffs.append(QuestionDiff(key, texts[key][0], texts[key][1], answers, spread))
    diffs.sort(key=lambda d: (-d.spread, d.key))
    return diffs


@dataclass
class ConditionEffect:
    model: str
    evaluator: str
    metric: str
    comparison: PairedComparison

    def as_json(self) -> dict[str, Any]:
        c = self.comparison
        return {
            "model": self.model,
            "evaluator": self.evaluator,
            "metric": self.metric,
            "n_paired": c.n_shared,
            "divergent": c.mean_a,
            "real": c.mean_b,
            "delta": c.difference.value,
            "interval": [c.difference.low, c.difference.high],
            "p_value": c.p_value,
            "test": c.test,
        }


def condition_effects(
    run: Run, *, first: str = "divergent", second: str = "real", seed: int = 0
) -> list[ConditionEffect]:
    """Within one run, ``first`` − ``second`` (divergent − real: the paper's main effect) per model, evaluator and
    metric, paired by question, temperature and sample (the same cell under the two conditions)."""
    items: dict[tuple[str, str, str], dict[str, dict[tuple[int, float, int], float]]] = defaultdict(
        lambda: defaultdict(dict)
    )
    rows = GenerationScore.objects.filter(
        generation__run=run, status=ScoreStatus.OK, generation__condition__in=[first, second]
    ).values_list(
        "generation__model__name",
        "scorer",
        "metric",
        "generation__condition",
        "generation__question_id",
        "generation__temperature",
        "generation__sample_index",
        "value",
    )
    for model, scorer, metric, condition, question, temperature, sample, value in rows.iterator():
        evaluator = EMBEDDING if metric == GenerationScore.Metric.ASS else scorer
        items[(model, evaluator, metric)][condition][(question, temperature, sample)] = _ok(value)
    effects = []
    for (model, evaluator, metric), per_condition in sorted(
        items.items(), key=lambda kv: (kv[0][0], kv[0][1], METRIC_ORDER.get(kv[0][2], 99))
    ):
        if per_condition.get(first) and per_condition.get(second):
            comparison = paired_comparison(per_condition[first], per_condition[second], seed=seed)
            effects.append(ConditionEffect(model, evaluator, metric, comparison))
    return effects
