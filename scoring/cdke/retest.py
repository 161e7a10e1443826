"""Test–retest of a finished CDK-E run's judges (issue 17, item 5): a sample of the run's answers, drawn with a
seed, is judged a second time by every evaluator of the run, with the response cache off for reading and for
writing (the client has no cache at all), and the repeat verdicts are stored apart (``RetestScore``): the run's
own scores are never touched. A retest is one ``RetestBatch`` per (run, sample size, seed) and one row per
(batch, answer, evaluator, metric) under a unique constraint, so starting it again, or a redelivered task, only
asks for what is missing.

Only the metrics whose agreement with themselves the report reads are asked again: Acc and Cm (graded, ICC(2,1))
and LAV (a verdict, Cohen's kappa), those of them the run chose. FC rests on statement sets shared by the whole run
and AC follows from FC and ASS: neither is re-judged. How far the two occasions agree: ``retest_report``."""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from django.db import IntegrityError, transaction
from django.db.models import F
from django.utils import timezone

from evalplatform.audit.services import audit_record
from evalplatform.llm.client import LLMClient
from evalplatform.roles import AnyUser, signed_in_user
from evalplatform.runs.clients import client_for
from evalplatform.runs.fields import stored_error
from evalplatform.runs.models import Generation, ModelEndpoint, Run
from evalplatform.runs.spec import RunSpec
from scoring.cdke.judge import JudgeContext, MetricResult, ScoringInterrupted, judge_metrics
from scoring.cdke.judge_prompts import JUDGE_PROMPT_SETS
from scoring.models import GenerationScore, RetestBatch, RetestScore, ScoreStatus
from scoring.reliability import QUARTER_SCALE, retest_agreement
from scoring.stats import Estimate

Metric = GenerationScore.Metric
# The metrics a retest asks again, and the scale each one's agreement is read on.
RETEST_SCALES: dict[str, str] = {Metric.ACC: "ordinal", Metric.CM: "ordinal", Metric.LAV: "nominal"}
RETEST_METRICS = tuple(RETEST_SCALES)
# Most answers one retest takes (each costs a call per metric and evaluator).
MAX_RETEST_SAMPLE = 10_000


class RetestError(ValueError):
    """A retest that cannot be started; ``field`` names what to change."""

    def __init__(self, field_name: str, message: str):
        self.field = field_name
        super().__init__(message)


def retest_sample(run: Run, size: int, seed: int) -> list[int]:
    """``size`` of the run's answered generations (all of them when it has fewer), drawn without replacement by
    Python's Mersenne Twister seeded with ``seed`` from the ids in ascending order: the same run, size and seed
    always give the same sample."""
    ids = list(
        Generation.objects.filter(run=run, status=Generation.Status.DONE).order_by("pk").values_list("pk", flat=True)
    )
    if size >= len(ids):
        return ids
    return random.Random(seed).sample(ids, size)


def retest_metrics(spec: RunSpec) -> list[str]:
    return [m for m in RETEST_METRICS if m in spec.metrics]


def retest_start(*, run: Run, sample_size: int, seed: int = 0, actor: AnyUser | None = None) -> RetestBatch:
    """Plan a retest of a finished CDK-E run (or find the one of this size and seed, to resume it), audited. The
    caller sends its units to the workers (``retest_enqueue``) or runs them inline (``retest_run_inline``)."""
    if run.kind != Run.Kind.CDKE:
        raise RetestError("run", "only a CDK-E run has judges to retest")
    if run.status != Run.Status.DONE:
        raise RetestError("run", f"run {run.pk} is {run.status}: retest a finished run")
    spec = RunSpec.from_dict(run.spec)
    if not spec.evaluators:
        raise RetestError("run", f"run {run.pk} has no evaluator")
    metrics = retest_metrics(spec)
    if not metrics:
        raise RetestError("run", "the run scored none of Acc, Cm and LAV")
    if not 1 <= sample_size <= MAX_RETEST_SAMPLE:
        raise RetestError("sample", f"must be a whole number from 1 to {MAX_RETEST_SAMPLE}")
    if seed < 0:
        raise RetestError("seed", "must be a whole number from 0")
    with transaction.atomic():
        batch = RetestBatch.objects.filter(run=run, sample_size=sample_size, seed=seed).first()
        created = batch is None
        if batch is None:
            sample = retest_sample(run, sample_size, seed)
            if not sample:
                raise RetestError("run", f"run {run.pk} has no answer to retest")
            try:
                with transaction.atomic():
                    batch = RetestBatch.objects.create(
                        run=run,
                        sample_size=sample_size,
                        seed=seed,
                        generations=sample,
                        evaluators=list(spec.evaluators),
                        metrics=metrics,
                        created_by=signed_in_user(actor),
                    )
            except IntegrityError:  # started twice at once: the other start's batch is the one
                batch = RetestBatch.objects.get(run=run, sample_size=sample_size, seed=seed)
                created = False
        audit_record(
            actor=actor,
            action="run.retest",
            obj=run,
            payload={"batch": batch.pk, "sample": sample_size, "seed": seed, "resumed": not created},
            dataset=run.dataset,
        )
    return batch


def retest_units(batch: RetestBatch) -> list[tuple[int, int]]:
    """The (generation id, evaluator id) pairs of the batch that still lack a metric."""
    evaluators = {e.name: e.pk for e in ModelEndpoint.objects.filter(name__in=batch.evaluators)}
    have = set(
        RetestScore.objects.filter(batch=batch).values_list("generation_id", "evaluator_id", "metric").order_by()
    )
    return [
        (generation_id, evaluators[name])
        for generation_id in batch.generations
        for name in batch.evaluators
        if name in evaluators and any((generation_id, evaluators[name], m) not in have for m in batch.metrics)
    ]


def retest_client(evaluator: ModelEndpoint) -> LLMClient:
    """The evaluator's client with no response cache: nothing is read from it, nothing written to it."""
    return client_for(evaluator, use_cache=False)


def retest_judge(
    *,
    batch: RetestBatch,
    generation: Generation,
    evaluator: ModelEndpoint,
    client: LLMClient | None = None,
    last_attempt: bool = True,
) -> list[MetricResult]:
    """Judge one sampled answer a second time with one evaluator, the cache off, and store what it lacks. A
    transient error (``last_attempt`` is the task's) stores what was scored and propagates for a retry."""
    stored = RetestScore.objects.filter(batch=batch, generation=generation, evaluator=evaluator)
    have = {
        row.metric: MetricResult(row.metric, row.value, row.status, row.raw_output) for row in stored.order_by("pk")
    }
    if all(m in have for m in batch.metrics):
        return []
    spec = RunSpec.from_dict(batch.run.spec)
    judge = JudgeContext(
        evaluator=evaluator,
        prompts=JUDGE_PROMPT_SETS[spec.judge_prompts],
        client=client or retest_client(evaluator),
        use_cache=False,
    )
    try:
        results = judge_metrics(judge, generation, have=have, last_attempt=last_attempt, metrics=batch.metrics)
    except ScoringInterrupted as exc:
        _store(batch, generation, evaluator, [r for r in exc.partial if r.metric in batch.metrics], judge.cost_usd)
        raise exc.cause from exc
    fresh = [r for r in results if r.metric in batch.metrics and r.metric not in have]
    _store(batch, generation, evaluator, fresh, judge.cost_usd)
    return fresh


def _store(
    batch: RetestBatch, generation: Generation, evaluator: ModelEndpoint, results: list[MetricResult], cost: float
) -> None:
    with transaction.atomic():
        RetestScore.objects.bulk_create(
            [
                RetestScore(
                    batch=batch,
                    generation=generation,
                    evaluator=evaluator,
                    metric=r.metric,
                    value=r.value if r.status == ScoreStatus.OK else None,
                    status=r.status,
                    raw_output=r.raw,
                )
                for r in results
            ],
            ignore_conflicts=True,
        )
        if cost:
            RetestBatch.objects.filter(pk=batch.pk).update(cost_usd=F("cost_usd") + Decimal(str(round(cost, 6))))
        retest_finish_if_complete(batch_id=batch.pk)


def retest_mark_failed(*, batch: RetestBatch, generation: Generation, evaluator: ModelEndpoint, error: str) -> None:
    """A unit that failed for a reason nobody foresaw: every metric it still lacks stored as failed, with the cause
    (scrubbed and cut like every stored error), so that the batch finishes and the report counts them missing."""
    stored = set(
        RetestScore.objects.filter(batch=batch, generation=generation, evaluator=evaluator).values_list(
            "metric", flat=True
        )
    )
    failed = [MetricResult(m, None, ScoreStatus.FAILED, stored_error(error)) for m in batch.metrics if m not in stored]
    _store(batch, generation, evaluator, failed, 0.0)


def retest_finish_if_complete(*, batch_id: int) -> bool:
    """Mark the batch finished once every unit has every metric: one count (the unique constraint makes the count
    of rows the count of distinct units and metrics) and one conditional update."""
    batch = RetestBatch.objects.get(pk=batch_id)
    planned = len(batch.generations) * len(batch.evaluators) * len(batch.metrics)
    if batch.finished_at is not None or RetestScore.objects.filter(batch=batch).count() < planned:
        return False
    return bool(RetestBatch.objects.filter(pk=batch_id, finished_at__isnull=True).update(finished_at=timezone.now()))


def retest_run_inline(batch: RetestBatch) -> int:
    """Every missing unit of the batch, in this process (``--sync``, tests); returns how many were judged. A unit
    whose calls keep failing is stored as failed (this is the last attempt)."""
    done = 0
    for generation_id, evaluator_id in retest_units(batch):
        generation = Generation.objects.select_related("question__context").get(pk=generation_id)
        evaluator = ModelEndpoint.objects.get(pk=evaluator_id)
        retest_judge(batch=batch, generation=generation, evaluator=evaluator)
        done += 1
    retest_finish_if_complete(batch_id=batch.pk)
    return done


# ---------------------------------------------------------------------------------------------------------------
# The read side: each judge against itself.


@dataclass(frozen=True)
class RetestRow:
    """One evaluator's agreement with itself on one metric: Cohen's kappa (LAV) or ICC(2,1) (Acc, Cm) as
    ``agreement``, with the linear weighted kappa of the graded metrics beside it."""

    evaluator: str
    metric: str
    statistic: str
    agreement: Estimate
    kappa: Estimate
    exact_agreement: float | None
    n: int
    n_missing: int
    changed: tuple[int, ...]

    def as_json(self) -> dict[str, Any]:
        return {
            "evaluator": self.evaluator,
            "metric": self.metric,
            "statistic": self.statistic,
            "value": self.agreement.value,
            "low": self.agreement.low,
            "high": self.agreement.high,
            "n": self.n,
            "reason": self.agreement.reason,
            "weighted_kappa": self.kappa.value if self.statistic == "icc(2,1)" else None,
            "exact_agreement": self.exact_agreement,
            "n_missing": self.n_missing,
            "changed": list(self.changed),
        }


def retest_rows(batch: RetestBatch, *, n_boot: int = 1000, seed: int = 0) -> list[RetestRow]:
    """Per evaluator and metric of the batch: the run's first verdicts against the retest's, on the sampled answers
    both occasions scored ok (``n``; ``n_missing`` those that one of them lacks or could not score)."""
    first: dict[tuple[str, str], dict[int, float]] = {}
    second: dict[tuple[str, str], dict[int, float]] = {}
    original = GenerationScore.objects.filter(
        generation_id__in=batch.generations, scorer__in=batch.evaluators, metric__in=batch.metrics
    ).values_list("scorer", "metric", "generation_id", "value", "status")
    for scorer, metric, generation_id, value, status in original:
        if status == ScoreStatus.OK and value is not None:
            first.setdefault((scorer, metric), {})[generation_id] = value
    repeat = RetestScore.objects.filter(batch=batch).values_list(
        "evaluator__name", "metric", "generation_id", "value", "status"
    )
    for scorer, metric, generation_id, value, status in repeat:
        if status == ScoreStatus.OK and value is not None:
            second.setdefault((scorer, metric), {})[generation_id] = value
    rows = []
    for evaluator in sorted(batch.evaluators):
        for metric in batch.metrics:
            a, b = first.get((evaluator, metric), {}), second.get((evaluator, metric), {})
            rows.append(_row(evaluator, metric, a, b, len(batch.generations), n_boot=n_boot, seed=seed))
    return rows


def _row(
    evaluator: str, metric: str, a: dict[int, float], b: dict[int, float], planned: int, *, n_boot: int, seed: int
) -> RetestRow:
    scale = RETEST_SCALES[metric]
    shared = [k for k in a if k in b]
    if not shared:
        none = Estimate(None, n=0, reason="no answer scored on both occasions")
        return RetestRow(evaluator, metric, _statistic(scale), none, none, None, 0, planned, ())
    categories: Sequence[float] = (0.0, 1.0) if scale == "nominal" else QUARTER_SCALE
    result = retest_agreement(
        {k: a[k] for k in shared},
        {k: b[k] for k in shared},
        scale=scale,  # type: ignore[arg-type]
        categories=categories,
        n_boot=n_boot,
        seed=seed,
    )
    agreement = result.kappa if scale == "nominal" else result.icc
    changed = tuple(sorted(int(str(k)) for k in result.changed))
    return RetestRow(
        evaluator,
        metric,
        _statistic(scale),
        agreement,
        result.kappa,
        result.exact_agreement,
        result.n,
        planned - result.n,
        changed,
    )


def _statistic(scale: str) -> str:
    return "kappa" if scale == "nominal" else "icc(2,1)"


def retest_report(run: Run, *, n_boot: int = 1000) -> list[dict[str, Any]]:
    """Every retest of the run, newest first: its sample, progress, cost and rows (``retest_rows``)."""
    report = []
    for batch in RetestBatch.objects.filter(run=run).order_by("-created_at", "-pk"):
        units = len(batch.generations) * len(batch.evaluators)
        report.append(
            {
                "batch": batch.pk,
                "sample_size": batch.sample_size,
                "seed": batch.seed,
                "n_sampled": len(batch.generations),
                "evaluators": batch.evaluators,
                "metrics": batch.metrics,
                "units": units,
                "units_left": len(retest_units(batch)),
                "finished": batch.finished_at is not None,
                "cost_usd": str(batch.cost_usd),
                "created_at": batch.created_at.isoformat(),
                "rows": [row.as_json() for row in retest_rows(batch, n_boot=n_boot)],
            }
        )
    return report


def retest_table(rows: Sequence[RetestRow]) -> str:
    """The rows as a fixed-width text table (the command's output)."""

    def num(x: float | None) -> str:
        return "-" if x is None else f"{x:.3f}"

    lines = [f"{'evaluator':<20} {'metric':<6} {'statistic':<9} {'value':>7} {'95% interval':>17} {'n':>5} {'same':>6}"]
    for r in rows:
        interval = f"[{num(r.agreement.low)}, {num(r.agreement.high)}]"
        lines.append(
            f"{r.evaluator:<20} {r.metric:<6} {r.statistic:<9} {num(r.agreement.value):>7} {interval:>17} "
            f"{r.n:>5} {num(r.exact_agreement):>6}" + (f"  ({r.agreement.reason})" if r.agreement.reason else "")
        )
    return "\n".join(lines)
