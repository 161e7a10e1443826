"""ASS, the answer semantic similarity (paper C, 3.4), in batches; and AC, which needs ASS and a judge's FC.

ASS is the cosine of the embeddings of an answer and its ground truth, clipped to [0, 1]. It is computed by the
``similarity`` stage on the embeddings workers, many answers per batch (each distinct string encoded once), never
in an answer's or a judge's task: the workers that call models load no encoder. Each answered cell joins a queue
(``SimilarityTodo``) and a batch takes the queue's first rows, so that a batch reads its own rows, not the run's.
AC = (1 - w) ASS + w FC is written by whichever comes second, the ASS or the evaluator's FC (``ac_row``); both lock
the generation's row first, so that one of them always sees the other and AC is written once."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from django.db import transaction

from evalplatform.runs.models import Generation, Run
from evalplatform.runs.services import run_count
from evalplatform.runs.spec import RunSpec
from evalplatform.single_writes import insert_ignoring_conflict
from scoring.cdke.metrics import answer_correctness, clip_unit
from scoring.embeddings import Encoder
from scoring.models import GenerationScore, ScoreStatus, SimilarityTodo
from scoring.selectors import generations_without_ass

ASS_VERSION = "ass@1"
AC_VERSION = "ac@1"
# The similarity stage's registered name (scoring.cdke.stages).
SIMILARITY_STAGE = "similarity"
# Answers per ASS batch: one encoder call for up to 2 x this many strings.
ASS_BATCH = 256
Metric = GenerationScore.Metric


def ass_todo_add(*, run_id: int, generation_ids: Iterable[int]) -> None:
    """Queue these answered cells for their ASS (once: a cell already queued stays queued). One cell, as every
    answer queues its own, is one statement in autocommit (``insert_ignoring_conflict``: no BEGIN and COMMIT)."""
    todo = [SimilarityTodo(generation_id=pk, run_id=run_id) for pk in generation_ids]
    if len(todo) == 1:
        insert_ignoring_conflict(todo[0])
    else:
        SimilarityTodo.objects.bulk_create(todo, ignore_conflicts=True)


def ass_todo_refill(run: Run, encoder_name: str) -> int:
    """Queue every answered cell of the run that lacks its ASS and is not queued (when the stage is sent again: a
    worker lost between an answer and its queueing leaves one out). O(run): never on the hot path."""
    missing = list(generations_without_ass(run, encoder_name).values_list("pk", flat=True))
    ass_todo_add(run_id=run.pk, generation_ids=missing)
    return len(missing)


@dataclass(frozen=True)
class AssBatch:
    taken: int  # cells taken from the queue
    stored: int  # ASS stored (and counted) by this batch: a cell that had its ASS already is taken, not stored


def ass_batch(*, run: Run, encoder: Encoder, limit: int = ASS_BATCH) -> AssBatch:
    """ASS of up to ``limit`` queued cells of the run, encoded in one batch and stored in one transaction with
    the AC they complete; their queue rows go in the same transaction (a batch that dies leaves them queued).
    Reads the batch's own rows, never the run's."""
    queued = list(
        SimilarityTodo.objects.filter(run=run).order_by("generation_id").values_list("generation_id", flat=True)[:limit]
    )
    if not queued:
        return AssBatch(taken=0, stored=0)
    # By primary key alone (the answer's status is checked in Python: a query naming it may be planned as a walk
    # of the run's answered cells while PostgreSQL lacks statistics; see generation_scores).
    taken = Generation.objects.filter(pk__in=queued).select_related("question").order_by("pk")
    todo = [g for g in taken if g.status == Generation.Status.DONE]
    texts = sorted({g.text for g in todo} | {g.question.ground_truth for g in todo})
    vectors = dict(zip(texts, encoder.encode(texts), strict=True)) if texts else {}
    values = {g.pk: clip_unit(float(vectors[g.text] @ vectors[g.question.ground_truth])) for g in todo}
    spec = RunSpec.from_dict(run.spec)
    with transaction.atomic():
        lock_generations(values)
        scores = {pk: generation_scores(pk) for pk in values}
        new = [g for g in todo if not any(s.metric == Metric.ASS and s.scorer == encoder.name for s in scores[g.pk])]
        stored = GenerationScore.objects.bulk_create(
            [
                GenerationScore(
                    generation=g,
                    scorer=encoder.name,
                    metric=Metric.ASS,
                    value=values[g.pk],
                    metric_version=ASS_VERSION,
                    ground_truth=g.question.ground_truth,
                )
                for g in new
            ]
        )
        completed = []  # the ACs these ASS complete (their FC is in), written in one INSERT
        for ass in stored:
            scores[ass.generation_id].append(ass)
            for scorer in spec.evaluators:
                ac = ac_row(
                    generation_id=ass.generation_id,
                    scorer=scorer,
                    fc_weight=spec.fc_weight,
                    scores=scores[ass.generation_id],
                )
                if ac is not None:
                    completed.append(ac)
        GenerationScore.objects.bulk_create(completed)
        if new:
            run_count(run_id=run.pk, stage=SIMILARITY_STAGE, done=len(new))
        SimilarityTodo.objects.filter(generation_id__in=queued).delete()
    return AssBatch(taken=len(queued), stored=len(new))


def generation_scores(generation_id: int) -> list[GenerationScore]:
    """Every score of one generation (a handful), in primary-key order, to pick from in Python. One generation
    per query, by generation alone: PostgreSQL serves that from the generation's index whatever its statistics,
    where a query that names a metric, or many generations at once, may be planned as a walk of the (metric,
    status) index or of the whole table while its statistics are missing or stale (autoanalyze not caught up)."""
    return list(GenerationScore.objects.filter(generation_id=generation_id).order_by("pk"))


def lock_generations(ids: Iterable[int]) -> None:
    """Lock these generations' rows until the transaction ends (in primary-key order: no deadlock)."""
    list(Generation.objects.select_for_update().filter(pk__in=list(ids)).order_by("pk").values_list("pk", flat=True))


def ac_row(
    *, generation_id: int, scorer: str, fc_weight: float, scores: Sequence[GenerationScore]
) -> GenerationScore | None:
    """The evaluator's AC of a generation, not saved yet, once its FC is scored and its ASS computed; None while
    either is missing or when its AC is there already. An FC that could not be scored gives its status to AC at
    once, without ASS. ``scores``: the generation's scores as read under its lock (``generation_scores``), with
    any its writer is about to insert."""
    mine = {s.metric: s for s in scores if s.scorer == scorer}
    if Metric.AC in mine:
        return None
    fc = mine.get(Metric.FC)
    if fc is None:
        return None
    details: dict[str, object] = {"fc_weight": fc_weight}
    if fc.status == ScoreStatus.SKIPPED:  # the run chose neither FC nor AC
        ac = GenerationScore(status=fc.status, details=details | {"reason": "not chosen for this run"})
    elif fc.status != ScoreStatus.OK or fc.value is None:
        ac = GenerationScore(status=fc.status, details=details | {"error": "FC could not be scored"})
    else:
        ass = next((s for s in scores if s.metric == Metric.ASS), None)  # in primary-key order: the first
        if ass is None or ass.value is None:
            return None  # the ASS batch writes it when it gets there
        value = answer_correctness(ass.value, fc.value, fc_weight)
        ac = GenerationScore(value=value, details=details | {"ass": ass.value, "fc": fc.value})
    ac.generation_id = generation_id
    ac.scorer = scorer
    ac.evaluator_id = fc.evaluator_id
    ac.metric = Metric.AC
    ac.metric_version = AC_VERSION
    ac.ground_truth = fc.ground_truth
    return ac
