"""The admins' report (reads only): counts per dataset and per run, annotator throughput, and inter-annotator
agreement (Cohen's kappa and raw agreement of the two blind reviews of a question, mean pairwise F1 of TAU
alignments); the numbers come from annotation.agreement's plain functions."""

import math
from collections import defaultdict
from dataclasses import dataclass
from datetime import timedelta

from django.contrib.auth.models import User
from django.db.models import Count, Q
from django.utils import timezone

from annotation.agreement import accuracy, cohen_kappa, mean_pairwise_f1
from annotation.models import CalibrationLabel, Review, TauLabel
from evalplatform.corpus.models import Dataset, Question
from evalplatform.runs.models import Generation, Run
from scoring.models import GenerationScore


@dataclass(frozen=True)
class DatasetCounts:
    name: str
    kind: str
    contexts: int
    questions: int
    validated: int
    rejected: int
    pairs: int
    runs: int


@dataclass(frozen=True)
class RunCounts:
    pk: int
    kind: str
    dataset: str
    status: str
    generations_done: int
    generations_failed: int
    generations_pending: int
    scores_ok: int
    scores_unparseable: int
    scores_failed: int
    cost_usd: float


@dataclass(frozen=True)
class AnnotatorThroughput:
    username: str
    reviews: int
    tau_labels: int
    calibration_labels: int
    last_7_days: int


@dataclass(frozen=True)
class Agreement:
    review_pairs: int
    review_kappa: float | None
    review_accuracy: float | None
    tau_items: int
    tau_mean_pairwise_f1: float | None


def _count_map(queryset: object, key: str) -> dict[int, int]:
    return dict(queryset.values_list(key).annotate(n=Count("pk")).values_list(key, "n"))  # type: ignore[attr-defined]


def dataset_counts() -> list[DatasetCounts]:
    contexts = dict(Dataset.objects.annotate(n=Count("contexts")).values_list("pk", "n"))
    pairs = dict(Dataset.objects.annotate(n=Count("pairs")).values_list("pk", "n"))
    runs = dict(Dataset.objects.annotate(n=Count("runs")).values_list("pk", "n"))
    questions: dict[int, dict[str, int]] = defaultdict(dict)
    for dataset_id, status, n in Question.objects.values_list("dataset_id", "status").annotate(n=Count("pk")):
        questions[dataset_id][status] = n
    return [
        DatasetCounts(
            d.name,
            d.kind,
            contexts[d.pk],
            sum(questions[d.pk].values()),
            questions[d.pk].get(Question.Status.VALIDATED, 0),
            questions[d.pk].get(Question.Status.REJECTED, 0),
            pairs[d.pk],
            runs[d.pk],
        )
        for d in Dataset.objects.order_by("name")
    ]


def run_counts(limit: int = 200) -> list[RunCounts]:
    runs = list(Run.objects.select_related("dataset").order_by("-created_at", "-pk")[:limit])
    ids = [r.pk for r in runs]
    generations: dict[int, dict[str, int]] = defaultdict(dict)
    for run_id, status, n in (
        Generation.objects.filter(run_id__in=ids).values_list("run_id", "status").annotate(n=Count("pk"))
    ):
        generations[run_id][status] = n
    scores: dict[int, dict[str, int]] = defaultdict(dict)
    for run_id, status, n in (
        GenerationScore.objects.filter(generation__run_id__in=ids)
        .values_list("generation__run_id", "status")
        .annotate(n=Count("pk"))
    ):
        scores[run_id][status] = n
    return [
        RunCounts(
            r.pk,
            r.kind,
            r.dataset.name,
            r.status,
            generations[r.pk].get("done", 0),
            generations[r.pk].get("failed", 0),
            generations[r.pk].get("pending", 0),
            scores[r.pk].get("ok", 0),
            scores[r.pk].get("unparseable", 0),
            scores[r.pk].get("failed", 0),
            float(r.cost_usd),
        )
        for r in runs
    ]


def annotator_throughput() -> list[AnnotatorThroughput]:
    """Submissions per annotator: reviews, TAU labels, calibration labels, and all three in the last 7 days."""
    since = timezone.now() - timedelta(days=7)
    reviews = _count_map(Review.objects.all(), "assignment__annotator_id")
    taus = _count_map(TauLabel.objects.all(), "assignment__annotator_id")
    calibrations = _count_map(CalibrationLabel.objects.all(), "annotator_id")
    recent: dict[int, int] = defaultdict(int)
    for counts in (
        _count_map(Review.objects.filter(submitted_at__gte=since), "assignment__annotator_id"),
        _count_map(TauLabel.objects.filter(submitted_at__gte=since), "assignment__annotator_id"),
        _count_map(CalibrationLabel.objects.filter(created_at__gte=since), "annotator_id"),
    ):
        for user_id, n in counts.items():
            recent[user_id] += n
    ids = set(reviews) | set(taus) | set(calibrations)
    users = User.objects.filter(Q(pk__in=ids) | Q(groups__name="annotator")).distinct().order_by("username")
    return [
        AnnotatorThroughput(
            u.username, reviews.get(u.pk, 0), taus.get(u.pk, 0), calibrations.get(u.pk, 0), recent.get(u.pk, 0)
        )
        for u in users
    ]


def _finite(value: float) -> float | None:
    return None if math.isnan(value) else value


def agreement() -> Agreement:
    """Reviews: the first two submitted reviews of each question, compared on accept (context coherent
    and question valid). TAU: the aligned pairs of every item with two or more labels."""
    by_item: dict[int, list[bool]] = defaultdict(list)
    for item_id, coherent, valid in Review.objects.order_by("submitted_at", "pk").values_list(
        "assignment__item_id", "context_coherent", "question_valid"
    ):
        by_item[item_id].append(coherent and valid)
    pairs = [votes[:2] for votes in by_item.values() if len(votes) >= 2]
    first, second = [p[0] for p in pairs], [p[1] for p in pairs]
    tau_sets: dict[int, list[set[tuple[int, int]]]] = defaultdict(list)
    for item_id, aligned in TauLabel.objects.values_list("assignment__item_id", "aligned"):
        tau_sets[item_id].append({(int(a), int(g)) for a, g in aligned})
    tau_scores = [mean_pairwise_f1(sets) for sets in tau_sets.values() if len(sets) >= 2]
    return Agreement(
        len(pairs),
        _finite(cohen_kappa(first, second)) if pairs else None,
        accuracy(first, second) if pairs else None,
        len(tau_scores),
        sum(tau_scores) / len(tau_scores) if tau_scores else None,
    )
