"""Reports over stored annotations: TAU alignment against the annotators' consensus (the S3KG paper's
Table 2 layout) and judge calibration against human labels. Rows are loaded here; every statistic comes
from annotation.agreement."""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from annotation.agreement import (
    PRF,
    Pair,
    accuracy,
    cohen_kappa,
    kea_exact_align,
    majority_pairs,
    mean_pairwise_f1,
    table2,
    weighted_kappa,
)
from annotation.models import CalibrationLabel, TauItem
from annotation.selectors import tau_labels_of
from evalplatform.runs.models import Run
from scoring.models import GenerationScore, ScoreStatus, TauDiagnosis

KEA_METHOD = "KEA (component-wise exact match)"
TAU_METHOD = "TAU (ours)"

# Paper S, Table 2 (three annotators, pairwise F1 0.97-0.99): the published rows, shown beside ours.
PAPER_TABLE_2: list[tuple[str, PRF]] = [
    ("paper S, Table 2: KEA", PRF(0.853, 0.738, 0.836, 0.953, 0.641, 0.622)),
    ("paper S, Table 2: TAU", PRF(0.847, 0.949, 0.895, 0.803, 0.946, 0.782)),
]


def tau_alignment_from_diagnosis(diagnosis: TauDiagnosis) -> set[Pair]:
    """Our TAU's alignment as stored by the scoring pipeline: [answer index, gold index, cosine] rows."""
    return {(int(row[0]), int(row[1])) for row in diagnosis.aligned}


@dataclass(frozen=True)
class TauReport:
    n_items: int
    annotator_f1: float | None
    rows: list[tuple[str, PRF]]
    n_with_tau: int

    @property
    def paper_rows(self) -> list[tuple[str, PRF]]:
        return PAPER_TABLE_2


def tau_report(items: Iterable[TauItem], tau_alignments: Mapping[int, set[Pair]] | None = None) -> TauReport:
    """TAU and KEA against the majority alignment (2 of 3 annotators) of complete items.

    ``tau_alignments`` maps item pk to our TAU's aligned pairs; by default they come from the item's
    GraphScore's TauDiagnosis. When some items have a TAU alignment, both rows are computed over exactly
    those items, so the rows compare like with like; otherwise only KEA is reported over all items."""
    consensus: dict[int, set[Pair]] = {}
    answers: dict[int, TauItem] = {}
    f1s: list[float] = []
    tau: dict[int, set[Pair]] = dict(tau_alignments or {})
    for item in items:
        label_sets = [{(int(a), int(g)) for a, g in label.aligned} for label in tau_labels_of(item)]
        if len(label_sets) < 2:
            continue
        consensus[item.pk] = majority_pairs(label_sets)
        answers[item.pk] = item
        f1s.append(mean_pairwise_f1(label_sets))
        if tau_alignments is None and item.graph_score_id is not None:
            diagnosis = TauDiagnosis.objects.filter(graph_score_id=item.graph_score_id).first()
            if diagnosis is not None:
                tau[item.pk] = tau_alignment_from_diagnosis(diagnosis)
    with_tau = [pk for pk in consensus if pk in tau]
    keys = with_tau or list(consensus)
    if not keys:
        return TauReport(0, None, [], 0)
    methods = {KEA_METHOD: [kea_exact_align(answers[pk].answer, answers[pk].gold) for pk in keys]}
    if with_tau:
        methods[TAU_METHOD] = [tau[pk] for pk in keys]
    rows = table2(methods, [consensus[pk] for pk in keys])
    return TauReport(len(consensus), sum(f1s) / len(f1s), rows, len(with_tau))


# -- judge calibration -------------------------------------------------------------------------------


@dataclass
class CalibrationRow:
    evaluator: str
    model: str
    n_lav: int = 0
    lav_kappa: float | None = None
    lav_accuracy: float | None = None
    n_acc: int = 0
    acc_weighted_kappa: float | None = None
    n_cm: int = 0
    cm_weighted_kappa: float | None = None
    unparseable: int = 0
    failed: int = 0


def _quarter(value: float) -> float:
    """A judge score snapped to the nearest point of the 0, 0.25, ..., 1 scale."""
    return round(value * 4) / 4


def _finite(value: float) -> float | None:
    return None if math.isnan(value) else value


def calibration_report(*, run: Run) -> list[CalibrationRow]:
    """Per evaluator and candidate model: Cohen's kappa and accuracy of the judge's LAV against the human
    LAV, and linear weighted kappa for Acc and Cm, over every (generation, human) label whose judge score
    is ok; unparseable and failed judge scores are counted apart, never compared."""
    labels = list(CalibrationLabel.objects.filter(item__generation__run=run).select_related("item__generation__model"))
    by_generation: dict[int, list[CalibrationLabel]] = defaultdict(list)
    for label in labels:
        by_generation[label.item.generation_id].append(label)
    scores = GenerationScore.objects.filter(
        generation_id__in=by_generation, metric__in=["lav", "acc", "cm"]
    ).select_related("generation__model")
    pairs: dict[tuple[str, str, str], tuple[list[float], list[float]]] = defaultdict(lambda: ([], []))
    rows: dict[tuple[str, str], CalibrationRow] = {}
    for score in scores:
        key = (score.scorer, score.generation.model.name)
        row = rows.setdefault(key, CalibrationRow(evaluator=key[0], model=key[1]))
        if score.status != ScoreStatus.OK or score.value is None:
            row.unparseable += score.status == ScoreStatus.UNPARSEABLE
            row.failed += score.status == ScoreStatus.FAILED
            continue
        human, judge = pairs[(*key, score.metric)]
        for label in by_generation[score.generation_id]:
            human.append(float(getattr(label, score.metric)))
            judge.append(round(score.value) if score.metric == "lav" else _quarter(score.value))
    for (evaluator, model, metric), (human, judge) in pairs.items():
        row = rows[(evaluator, model)]
        if metric == "lav":
            row.n_lav = len(human)
            row.lav_kappa = _finite(cohen_kappa(human, judge))
            row.lav_accuracy = accuracy(human, judge)
        elif metric == "acc":
            row.n_acc = len(human)
            row.acc_weighted_kappa = _finite(weighted_kappa(human, judge))
        else:
            row.n_cm = len(human)
            row.cm_weighted_kappa = _finite(weighted_kappa(human, judge))
    return [rows[k] for k in sorted(rows)]
