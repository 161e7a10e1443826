"""Writes on a cell's hot path that are one statement each make no transaction of their own (issue 15, goal 2).

A cell makes seven provider calls, and each stores its response in the shared cache; two more write a statement
set's claim. Wrapped in ``transaction.atomic`` (as ``bulk_create`` wraps itself), each single INSERT cost two more
round trips, BEGIN and COMMIT, and about twice the CPU (1.0 ms against 0.5 on a two-core machine). Outside a
transaction one statement is atomic by itself; inside a caller's transaction the claim still takes a savepoint, so
that losing the race leaves the caller's transaction usable."""

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from django.db import connection, transaction
from django.db.models import F

from evalplatform.corpus.models import Dataset
from evalplatform.llm.types import LLMResponse
from evalplatform.runs.clients import DatabaseResponseCache, client_for
from evalplatform.runs.models import CachedResponse, Generation, ModelEndpoint, Run, StageProgress
from evalplatform.runs.signals import run_finished
from evalplatform.runs.spec import RunSpec
from scoring.cdke.answer import ANSWER_STAGE, generation_answer
from scoring.cdke.judge import JUDGE_STAGE, MetricResult, scores_store
from scoring.cdke.similarity import SIMILARITY_STAGE, ass_batch, ass_todo_add
from scoring.cdke.statements import _claim_new
from scoring.embeddings import get_encoder
from scoring.models import GenerationScore, ScoreStatus, SimilarityTodo, StatementSet

EndpointFactory = Callable[..., ModelEndpoint]
Metric = GenerationScore.Metric


@contextmanager
def statements_seen() -> Iterator[list[tuple[str, bool]]]:
    """Each statement this connection runs, with whether it ran inside an atomic block (a transaction Django
    opened with BEGIN, or a savepoint in one)."""
    seen: list[tuple[str, bool]] = []

    def record(execute: Any, sql: str, params: Any, many: bool, context: Any) -> Any:
        seen.append((sql, connection.in_atomic_block))
        return execute(sql, params, many, context)

    with connection.execute_wrapper(record):
        yield seen


def response(text: str) -> LLMResponse:
    return LLMResponse(text=text, finish_reason="stop", input_tokens=3, output_tokens=2, latency_s=0.1)


@pytest.mark.django_db(transaction=True)
def test_a_cache_put_is_one_statement_in_autocommit_and_the_first_response_stays() -> None:
    cache = DatabaseResponseCache(provider="openai", model_id="m")
    with statements_seen() as seen:
        cache.put("k1", response("first"))
    assert [in_block for _, in_block in seen] == [False]  # SQLite shows its BEGIN here; PostgreSQL's is implicit
    assert seen[0][0].startswith("INSERT")
    cache.put("k1", response("second"))  # two workers answering the same request: the first one stays
    assert CachedResponse.objects.filter(key="k1").count() == 1
    stored = cache.get("k1")
    assert stored is not None and stored.text == "first"


@pytest.mark.django_db(transaction=True)
def test_a_claim_outside_a_transaction_is_one_statement_in_autocommit(endpoint_factory: EndpointFactory) -> None:
    key: dict[str, object] = {"evaluator": endpoint_factory("judge"), "text_hash": "h", "prompt_version": "v1"}
    with statements_seen() as seen:
        claimed = _claim_new(key, None)
    assert claimed is not None
    assert [in_block for _, in_block in seen] == [False]
    assert _claim_new(key, None) is None  # claimed already: the loser gets None
    assert StatementSet.objects.filter(text_hash="h").count() == 1


@pytest.mark.django_db(transaction=True)
def test_a_claim_lost_inside_a_transaction_leaves_that_transaction_usable(endpoint_factory: EndpointFactory) -> None:
    key: dict[str, object] = {"evaluator": endpoint_factory("judge"), "text_hash": "h", "prompt_version": "v1"}
    assert _claim_new(key, None) is not None
    with transaction.atomic():
        assert _claim_new(key, None) is None
        assert StatementSet.objects.filter(text_hash="h").count() == 1  # would raise on an aborted transaction


@pytest.mark.django_db
def test_an_answer_stored_is_on_the_cell_without_reading_it_back(
    launch: Callable[..., Run], sample_dataset: Dataset, endpoint_factory: EndpointFactory
) -> None:
    """The answer task handed the cell to the later stages after reading the whole row again; the writer knows
    what it stored."""
    endpoint_factory("cand")
    run = launch(sample_dataset, models=["cand"], limit=1)
    cell = Generation.objects.select_related("run", "question__context", "model").filter(run=run).first()
    assert cell is not None
    Generation.objects.filter(pk=cell.pk).update(status=Generation.Status.PENDING, text="")
    StageProgress.objects.filter(run=run, stage=ANSWER_STAGE).update(done=F("done") - 1)  # the cell is to do again
    Run.objects.filter(pk=run.pk).update(progress_done=F("progress_done") - 1, status=Run.Status.RUNNING)
    cell.status, cell.text = Generation.Status.PENDING, ""
    spec = RunSpec.from_dict(run.spec)
    with statements_seen() as seen:
        assert generation_answer(generation=cell, client=client_for(cell.model, use_cache=False), spec=spec)
    stored = Generation.objects.get(pk=cell.pk)
    assert stored.status == Generation.Status.DONE and stored.text
    assert (cell.status, cell.text) == (stored.status, stored.text)
    assert not any(sql.startswith("SELECT") and "runs_generation" in sql for sql, _ in seen)


def _unit_unscored(run: Run, judge: ModelEndpoint) -> Generation:
    """The run's first cell with the judge's unit of it undone (its rows gone, its count taken back)."""
    cell = Generation.objects.select_related("question").filter(run=run).first()
    assert cell is not None
    GenerationScore.objects.filter(generation=cell, scorer=judge.name).delete()
    StageProgress.objects.filter(run=run, stage=JUDGE_STAGE).update(done=F("done") - 1)
    Run.objects.filter(pk=run.pk).update(progress_done=F("progress_done") - 1)
    return cell


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("fc_status", [ScoreStatus.OK, ScoreStatus.FAILED])
def test_a_judged_unit_is_stored_without_a_savepoint_or_a_second_look_for_failures(
    launch: Callable[..., Run], sample_dataset: Dataset, endpoint_factory: EndpointFactory, fc_status: str
) -> None:
    """The unit's LAV was written in a savepoint of its own (SAVEPOINT, INSERT, RELEASE) and its failures were
    then looked up with one more query. Under the cell's lock the rows read once say both: whether another writer
    completed the unit, and whether any of its metrics failed."""
    endpoint_factory("cand")
    judge = endpoint_factory("judge")
    run = launch(sample_dataset, models=["cand"], evaluators=["judge"], limit=1)
    assert run.status == Run.Status.DONE
    cell = _unit_unscored(run, judge)
    fc_value = 1.0 if fc_status == ScoreStatus.OK else None
    results = [
        MetricResult(Metric.FC, fc_value, fc_status, "fc raw", {}),
        MetricResult(Metric.ACC, 1.0, ScoreStatus.OK, "acc raw", {}),
        MetricResult(Metric.CM, 1.0, ScoreStatus.OK, "cm raw", {}),
        MetricResult(Metric.LAV, 1.0, ScoreStatus.OK, "lav raw", {}),
    ]
    with statements_seen() as seen:
        completed = scores_store(generation=cell, evaluator=judge, results=results, prompt_set="2", fc_weight=0.75)
    assert completed
    statements = [sql.split()[0].upper() for sql, _ in seen]
    assert "SAVEPOINT" not in statements and "RELEASE" not in statements
    assert sum(1 for sql, _ in seen if sql.startswith("SELECT") and "scoring_generationscore" in sql) == 1
    # FC, Acc, Cm, the AC they complete (the cell's ASS is in) and LAV: one INSERT
    assert sum(1 for sql, _ in seen if sql.startswith('INSERT INTO "scoring_generationscore"')) == 1
    stored = {s.metric: s for s in GenerationScore.objects.filter(generation=cell, scorer=judge.name)}
    assert set(stored) == {Metric.FC, Metric.AC, Metric.ACC, Metric.CM, Metric.LAV}
    assert stored[Metric.AC].status == fc_status  # an FC that failed fails AC with it
    judged = StageProgress.objects.get(run=run, stage=JUDGE_STAGE)
    assert judged.done == judged.total
    assert judged.failed == (0 if fc_status == ScoreStatus.OK else 1)
    # A second writer of the same unit (a redelivered task) stores nothing and counts nothing.
    assert not scores_store(generation=cell, evaluator=judge, results=results, prompt_set="2", fc_weight=0.75)
    again = StageProgress.objects.get(run=run, stage=JUDGE_STAGE)
    assert (again.done, again.failed) == (judged.done, judged.failed)
    assert GenerationScore.objects.filter(generation=cell, scorer=judge.name).count() == 5


@pytest.mark.django_db(transaction=True)
def test_queueing_one_answered_cell_for_its_ass_is_one_statement_in_autocommit(
    launch: Callable[..., Run], sample_dataset: Dataset, endpoint_factory: EndpointFactory
) -> None:
    """Every answered cell joins the ASS queue; as a one-row bulk_create it paid a BEGIN and a COMMIT too."""
    endpoint_factory("cand")
    run = launch(sample_dataset, models=["cand"], limit=1)
    cell = Generation.objects.filter(run=run).first()
    assert cell is not None
    with statements_seen() as seen:
        ass_todo_add(run_id=run.pk, generation_ids=[cell.pk])
    assert [in_block for _, in_block in seen] == [False] and seen[0][0].startswith("INSERT")
    ass_todo_add(run_id=run.pk, generation_ids=[cell.pk])  # queued already: stays queued once
    assert SimilarityTodo.objects.filter(generation=cell).count() == 1


@pytest.mark.django_db(transaction=True)
def test_a_run_is_finished_by_the_count_that_completes_it_and_by_no_other_statement(
    launch: Callable[..., Run], sample_dataset: Dataset, endpoint_factory: EndpointFactory
) -> None:
    """Every answer, ASS batch and judging task ended with a conditional UPDATE of the run to finish it: three or
    four statements a cell, of which one, the last, changed a row. Only a count can complete a run, so the count
    that reaches the total finishes it, and a count that does not costs one UPDATE of the run, not two."""
    endpoint_factory("cand")
    endpoint_factory("judge")
    finished: list[int] = []

    def on_finished(sender: object, run_id: int, **kwargs: object) -> None:
        finished.append(run_id)

    run_finished.connect(on_finished)
    try:
        with statements_seen() as seen:
            run = launch(sample_dataset, models=["cand"], evaluators=["judge"], limit=3)
    finally:
        run_finished.disconnect(on_finished)
    assert run.status == Run.Status.DONE and run.progress_done == run.progress_total == 3 * 3
    assert finished == [run.pk]
    run_updates = [sql for sql, _ in seen if sql.startswith('UPDATE "runs_run" SET')]
    # queued -> running, the launch's own look (a run with nothing to do finishes at once), running -> done
    assert sum(1 for sql in run_updates if '"status" =' in sql) == 3
    counts = sum(1 for sql, _ in seen if sql.startswith('UPDATE "runs_stageprogress" SET "done"'))
    assert 0 < counts <= 3 * 3  # a count per unit, ASS a batch at a time
    assert sum(1 for sql in run_updates if '"progress_done" = (' in sql) == counts + 1  # the last one once more


@pytest.mark.django_db(transaction=True)
def test_an_ass_batch_writes_the_acs_it_completes_in_one_insert(
    launch: Callable[..., Run], sample_dataset: Dataset, endpoint_factory: EndpointFactory
) -> None:
    """A cell judged before its ASS gets its AC from the ASS batch; the batch wrote them one INSERT each."""
    endpoint_factory("cand")
    endpoint_factory("judge")
    run = launch(sample_dataset, models=["cand"], evaluators=["judge"], limit=3)
    cells = list(Generation.objects.filter(run=run).order_by("pk"))
    before = {s.generation_id: s.value for s in GenerationScore.objects.filter(generation__run=run, metric=Metric.AC)}
    assert len(before) == 3
    GenerationScore.objects.filter(generation__run=run, metric__in=[Metric.ASS, Metric.AC]).delete()
    SimilarityTodo.objects.bulk_create([SimilarityTodo(generation=c, run=run) for c in cells])
    StageProgress.objects.filter(run=run, stage=SIMILARITY_STAGE).update(done=0)  # the three to count again
    Run.objects.filter(pk=run.pk).update(progress_done=F("progress_done") - 3, status=Run.Status.RUNNING)
    spec = RunSpec.from_dict(run.spec)
    with statements_seen() as seen:
        batch = ass_batch(run=run, encoder=get_encoder(spec.embedder))
    assert (batch.taken, batch.stored) == (3, 3)
    assert sum(1 for sql, _ in seen if sql.startswith('INSERT INTO "scoring_generationscore"')) == 2  # ASS, AC
    after = {s.generation_id: s.value for s in GenerationScore.objects.filter(generation__run=run, metric=Metric.AC)}
    assert after == pytest.approx(before)
    assert Run.objects.get(pk=run.pk).status == Run.Status.DONE  # the batch's count completed the run again
