"""A run's judges against people (read side), on the run's calibration sample.

The human label of an answer is the majority of its annotators for LAV (an even split is no label) and their mean
for Acc and Cm. Against it, per metric: each judge, the panel of judges (the run's ``panel`` rules) and the
embedding metrics ASS and CUS (where the run has them), each through ``scoring.reliability.compare_to_reference``:
Cohen's kappa for LAV, linear weighted kappa for Acc and Cm (both sides snapped to the nearest step of the
0 / 0.25 / ... / 1 scale for kappa, the confusion matrix and the disagreements; Pearson and Spearman on the
values as they are), no kappa for ASS and CUS (continuous). Only ok scores count: an unparseable or failed judge
score is a missing value, never a zero.

A judge whose kappa with people on a metric is below the run's ``judge_min_agreement`` (or unknown there: no
calibration label, or kappa undefined) is flagged; ``judge_flags`` is what every table showing a judge's scores
reads. This lives in annotation, which sits above scoring: the human labels are annotation's. Definitions:
docs/conflict_and_judges.md, section 5."""

from __future__ import annotations

import math
import statistics
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from django.urls import reverse

from annotation.models import CalibrationLabel
from evalplatform.runs.models import Run
from scoring.models import GenerationScore, GraphScore, ScoreStatus
from scoring.panel import PanelSpec, central, majority
from scoring.reliability import (
    QUARTER_SCALE,
    RaterAgreement,
    Scale,
    cohen_kappa,
    compare_to_reference,
    flag_raters,
    weighted_kappa,
)
from scoring.stats import correlation_estimate, finite_or_none

HUMAN_METRICS = ("lav", "acc", "cm")
SCALES: dict[str, Scale] = {"lav": "nominal", "acc": "ordinal", "cm": "ordinal"}
# The S3KG variant whose CUS is compared with people (the default variant of the knowledge-graph pass).
CUS_VARIANT = "s3kg"
PANEL = "panel"
Values = dict[int, float]


@dataclass(frozen=True)
class RaterRow:
    """One rater (a judge, the panel, ASS or CUS) against people on one metric; ``flag`` says why a judge is
    flagged (None: not flagged, or not a judge)."""

    rater: str
    kind: str  # judge, panel, embedding
    agreement: RaterAgreement
    flag: str | None = None


@dataclass(frozen=True)
class JudgeAgreement:
    run_id: int
    threshold: float | None
    n_items: int
    n_labels: int
    n_annotators: int
    metrics: dict[str, list[RaterRow]]
    flags: dict[str, str]


def human_labels(run: Run) -> dict[str, Values]:
    """metric -> generation id -> the people's label: LAV the annotators' majority (a tie: no label), Acc and Cm
    their mean."""
    by_generation: dict[int, list[CalibrationLabel]] = defaultdict(list)
    for label in CalibrationLabel.objects.filter(item__generation__run=run).select_related("item"):
        by_generation[label.item.generation_id].append(label)
    out: dict[str, Values] = {m: {} for m in HUMAN_METRICS}
    for gen_id, labels in by_generation.items():
        verdict, _tie = majority([label.lav for label in labels], tie="unresolved")
        if verdict is not None:
            out["lav"][gen_id] = float(verdict)
        for metric in ("acc", "cm"):
            out[metric][gen_id] = statistics.fmean(float(getattr(label, metric)) for label in labels)
    return out


def _judge_values(run: Run, generations: set[int]) -> dict[str, dict[str, Values]]:
    """metric -> judge -> generation id -> its ok score, on these generations."""
    out: dict[str, dict[str, Values]] = {m: defaultdict(dict) for m in HUMAN_METRICS}
    rows = GenerationScore.objects.filter(
        generation__run=run,
        generation_id__in=generations,
        metric__in=HUMAN_METRICS,
        evaluator__isnull=False,
        status=ScoreStatus.OK,
        value__isnull=False,
    ).values_list("generation_id", "scorer", "metric", "value")
    for gen_id, scorer, metric, value in rows:
        # LAV as the panel reads it (truthy: valid), so that a stray value cannot fall outside the 0 / 1 categories.
        out[metric][scorer][gen_id] = float(bool(value)) if metric == "lav" else float(value)  # type: ignore[arg-type]
    return out


def _panel_values(judges: Mapping[str, Values], metric: str, spec: PanelSpec) -> Values:
    """The panel's verdict per generation (the rules of ``scoring.panel.panel_metric``); no verdict: absent."""
    out: Values = {}
    for gen_id in {g for values in judges.values() for g in values}:
        given = [values[gen_id] for values in judges.values() if gen_id in values]
        verdict = majority([int(v) for v in given], spec.lav_tie)[0] if metric == "lav" else central(given, spec.graded)
        if verdict is not None:
            out[gen_id] = float(verdict)
    return out


def _embedding_values(run: Run, generations: set[int]) -> dict[str, Values]:
    """ASS (the embedder's score) and CUS (the S3KG variant's, the first stored per answer), where present."""
    ass = dict(
        GenerationScore.objects.filter(
            generation__run=run, generation_id__in=generations, metric="ass", status=ScoreStatus.OK
        ).values_list("generation_id", "value")
    )
    cus: Values = {}
    for gen_id, value in (
        GraphScore.objects.filter(generation_id__in=generations, variant=CUS_VARIANT, cus__isnull=False)
        .order_by("pk")
        .values_list("generation_id", "cus")
    ):
        cus.setdefault(gen_id, float(value))  # type: ignore[arg-type]
    out = {"ass": {g: float(v) for g, v in ass.items() if v is not None}, "cus": cus}
    return {name: values for name, values in out.items() if values}


def _snap(value: float) -> float:
    """A score snapped to the nearest step of the quarter scale (as annotation.reports does for judges)."""
    return round(value * 4) / 4


def _compare(reference: Values, rater: Values, metric: str, *, continuous: bool, n_boot: int) -> RaterAgreement:
    if continuous:
        return compare_to_reference(reference, rater, scale="continuous", n_boot=n_boot)
    if SCALES[metric] == "nominal":
        return compare_to_reference(reference, rater, scale="nominal", categories=(0.0, 1.0), n_boot=n_boot)
    snapped = compare_to_reference(
        {k: _snap(v) for k, v in reference.items()},
        {k: _snap(v) for k, v in rater.items()},
        scale="ordinal",
        n_boot=n_boot,
    )
    keys = [k for k in reference if k in rater]
    xs, ys = [reference[k] for k in keys], [rater[k] for k in keys]
    if not keys:
        return snapped
    return replace(
        snapped,
        pearson=correlation_estimate(xs, ys, method="pearson"),
        spearman=correlation_estimate(xs, ys, method="spearman"),
    )


def kappa_with_people(reference: Values, rater: Values, metric: str) -> float | None:
    """The kappa of ``compare_to_reference`` without its interval: Cohen's for LAV, linear weighted on the
    snapped quarter scale for Acc and Cm; None when no item has both or kappa is undefined."""
    keys = [k for k in reference if k in rater]
    if not keys:
        return None
    if SCALES[metric] == "nominal":
        return finite_or_none(cohen_kappa([reference[k] for k in keys], [rater[k] for k in keys]))
    a, b = [_snap(reference[k]) for k in keys], [_snap(rater[k]) for k in keys]
    return finite_or_none(weighted_kappa(a, b, QUARTER_SCALE))


def _flags(
    run: Run, human: dict[str, Values], judges: dict[str, dict[str, Values]], threshold: float | None
) -> dict[str, str]:
    if threshold is None:
        return {}
    chosen = [m for m in HUMAN_METRICS if m in (run.spec.get("metrics") or HUMAN_METRICS)]
    names = list(dict.fromkeys([*run.spec.get("evaluators", []), *(j for m in chosen for j in judges[m])]))
    reasons: dict[str, list[str]] = defaultdict(list)
    for metric in chosen:
        kappas = {judge: kappa_with_people(human[metric], judges[metric].get(judge, {}), metric) for judge in names}
        for judge, reason in flag_raters(kappas, threshold).items():
            reasons[judge].append(f"{metric.upper()}: {reason}")
    return {judge: "; ".join(why) for judge, why in reasons.items()}


def _threshold(run: Run) -> float | None:
    value = (run.spec or {}).get("judge_min_agreement")
    return None if value is None or not math.isfinite(float(value)) else float(value)


def judge_flags(run: Run) -> dict[str, str]:
    """The run's judges to flag on every table that shows their scores, each with the reason; empty when the run
    sets no ``judge_min_agreement``."""
    threshold = _threshold(run)
    if threshold is None:
        return {}
    human = human_labels(run)
    generations = {g for values in human.values() for g in values}
    return _flags(run, human, _judge_values(run, generations), threshold)


def judge_flags_across(runs: Sequence[Run]) -> dict[str, str]:
    """The judges flagged in any of ``runs`` (a comparison's), each with the runs that flag it and why."""
    reasons: dict[str, list[str]] = defaultdict(list)
    for run in runs:
        for judge, reason in judge_flags(run).items():
            reasons[judge].append(f"run {run.pk}: {reason}")
    return {judge: "; ".join(found) for judge, found in reasons.items()}


def judge_agreement(run: Run, *, n_boot: int = 1000) -> JudgeAgreement:
    """Each judge, the panel, ASS and CUS against people on the run's calibration sample, per metric."""
    human = human_labels(run)
    generations = {g for values in human.values() for g in values}
    judges = _judge_values(run, generations)
    embeddings = _embedding_values(run, generations)
    threshold = _threshold(run)
    flags = _flags(run, human, judges, threshold)
    spec = PanelSpec.from_options(run.spec.get("panel"))
    named = list(run.spec.get("evaluators", []))
    metrics: dict[str, list[RaterRow]] = {}
    for metric in HUMAN_METRICS:
        reference = human[metric]
        order = sorted(judges[metric], key=lambda j: (named.index(j) if j in named else len(named), j))
        rows = [
            RaterRow(
                judge, "judge", _compare(reference, judges[metric][judge], metric, continuous=False, n_boot=n_boot)
            )
            for judge in order
        ]
        rows = [replace(row, flag=flags.get(row.rater)) for row in rows]
        if len(order) > 1:
            panel = _panel_values({j: judges[metric][j] for j in order}, metric, spec)
            rows.append(RaterRow(PANEL, "panel", _compare(reference, panel, metric, continuous=False, n_boot=n_boot)))
        for name, values in embeddings.items():
            rows.append(
                RaterRow(name, "embedding", _compare(reference, values, metric, continuous=True, n_boot=n_boot))
            )
        metrics[metric] = rows
    n_annotators = CalibrationLabel.objects.filter(item__generation__run=run).values("annotator").distinct().count()
    n_labels = CalibrationLabel.objects.filter(item__generation__run=run).count()
    return JudgeAgreement(run.pk, threshold, len(generations), n_labels, n_annotators, metrics, flags)


def answer_url(run_id: int, generation_id: int) -> str:
    return reverse("runs:generation", args=[run_id, generation_id])


def judge_agreement_json(report: JudgeAgreement) -> dict[str, Any]:
    def row_json(row: RaterRow) -> dict[str, Any]:
        a = row.agreement
        return {
            "rater": row.rater,
            "kind": row.kind,
            "scale": a.scale,
            "n": a.n,
            "kappa": a.kappa.as_json(),
            "pearson": a.pearson.as_json(),
            "spearman": a.spearman.as_json(),
            "exact_agreement": a.exact_agreement,
            "confusion": a.confusion.as_json() if a.confusion else None,
            "disagreements": [{"generation": g, "url": answer_url(report.run_id, int(g))} for g in a.disagreements],  # type: ignore[call-overload]
            "flagged": row.flag is not None,
            "flag_reason": row.flag,
        }

    return {
        "threshold": report.threshold,
        "n_items": report.n_items,
        "n_labels": report.n_labels,
        "n_annotators": report.n_annotators,
        "flags": report.flags,
        "metrics": {m: [row_json(r) for r in rows] for m, rows in report.metrics.items()},
    }
