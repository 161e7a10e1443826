"""Rows read per cell do not grow with the run (issue 15, goal 2): the work of a few new cells (their answers,
ASS batches and judging, inline) reads as many rows in a run of 2,000 finished cells as in one of 200, and so does
choosing the next cells to send. Rows are PostgreSQL's own count for the test's transaction
(``pg_stat_xact_user_tables``), so the figure is the one the throughput benchmark measures, counted here for a
handful of cells."""

from collections.abc import Callable
from datetime import timedelta
from typing import Any

import pytest
from django.db import connection
from django.db.models import F
from django.utils import timezone

from evalplatform.corpus.models import Dataset, Question
from evalplatform.runs.models import Generation, ModelEndpoint, Run, StageProgress
from evalplatform.runs.watchdog import run_watch
from scoring.cdke.similarity import ass_batch, ass_todo_add
from scoring.cdke.tasks import answers_to_send, generation_answer_task
from scoring.embeddings import get_encoder
from scoring.models import GenerationScore, SimilarityTodo
from tests.runs.bench_dataset import copy_row

pytestmark = [pytest.mark.django_db, pytest.mark.postgres]
EndpointFactory = Callable[..., ModelEndpoint]
SPEC = {"conditions": ["divergent"], "temperatures": [0.2]}
# New cells answered and scored inline in each run.
NEW_CELLS = 3
# Answers in one ASS batch (enough that PostgreSQL weighs one index probe per cell against one scan).
BATCHED_CELLS = 50
# The tables a run's cells and scores fill.
RUN_TABLES = ("runs_generation", "scoring_generationscore", "scoring_similaritytodo")


def rows_read() -> int:
    """Rows read by this transaction so far: heap rows of sequential scans and of index scans, every table."""
    return sum(rows_read_by_table().values())


def rows_read_by_table() -> dict[str, int]:
    """Rows read by this transaction so far, by table (sequential scans and index scans: the heap rows)."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT relname, seq_tup_read + coalesce(idx_tup_fetch, 0) FROM pg_stat_xact_user_tables")
        return {name: int(count) for name, count in cursor.fetchall()}


def rows_read_since(before: dict[str, int]) -> dict[str, int]:
    """Rows read by table since ``before`` (a ``rows_read_by_table`` reading), tables not read left out."""
    since = {name: count - before.get(name, 0) for name, count in rows_read_by_table().items()}
    return {name: count for name, count in since.items() if count}


def grown(run: Run, finished: int, *, statistics: bool = True) -> list[Generation]:
    """Grow a finished run to ``finished`` finished cells (its cells and their scores copied as further samples),
    add NEW_CELLS pending cells and one more, and set it running again. Returns the first NEW_CELLS pending cells:
    the last one keeps the run from finishing (a run's results are computed once, when it finishes). With
    ``statistics``, the planner sees the run's real size, as autovacuum's ANALYZE leaves it; without, it has no
    statistics on the run's tables, as on a server whose autoanalyze has not caught up (or is off)."""
    template = list(Generation.objects.filter(run=run).order_by("pk"))
    scores = {g.pk: list(GenerationScore.objects.filter(generation=g)) for g in template}
    sources = [template[i % len(template)] for i in range(finished - len(template))]
    created = Generation.objects.bulk_create(
        copy_row(g, sample_index=1 + i // len(template)) for i, g in enumerate(sources)
    )
    GenerationScore.objects.bulk_create(
        copy_row(s, generation_id=copy.pk)
        for source, copy in zip(sources, created, strict=True)
        for s in scores[source.pk]
    )
    pending = Generation.objects.bulk_create(
        copy_row(template[0], sample_index=10_000 + i, status=Generation.Status.PENDING, text="", queued_at=None)
        for i in range(NEW_CELLS + 1)
    )
    for stage in StageProgress.objects.filter(run=run):
        total = stage.per_cell * (finished + len(pending))
        StageProgress.objects.filter(pk=stage.pk).update(total=total, done=stage.per_cell * finished)
    stages = StageProgress.objects.filter(run=run)
    Run.objects.filter(pk=run.pk).update(
        status=Run.Status.RUNNING,
        progress_total=sum(s.total for s in stages),
        progress_done=sum(s.done for s in stages),
        progress_failed=0,
    )
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE")
        if not statistics:  # forgotten in this test's transaction only (it is rolled back)
            tables = ", ".join(f"'{table}'::regclass" for table in RUN_TABLES)
            cursor.execute(f"DELETE FROM pg_statistic WHERE starelid IN ({tables})")  # noqa: S608 (constants)
    return pending[:NEW_CELLS]


def rows_to_finish(cells: list[Generation], capture: Callable[..., Any]) -> int:
    before = rows_read()
    with capture(execute=True):
        for cell in cells:
            generation_answer_task.delay(cell.pk)
    return rows_read() - before


def test_the_rows_a_new_cell_reads_do_not_grow_with_the_run(
    launch: Callable[..., Run],
    sample_dataset: Dataset,
    endpoint_factory: EndpointFactory,
    django_capture_on_commit_callbacks: Callable[..., Any],
) -> None:
    if connection.vendor != "postgresql":
        pytest.skip("rows read are PostgreSQL's count; set DATABASE_URL=postgres://...")
    endpoint_factory("cand")
    endpoint_factory("judge")
    reads = {}
    for finished in (200, 2000):
        run = launch(sample_dataset, models=["cand"], evaluators=["judge"], **SPEC)
        assert run.status == Run.Status.DONE
        cells = grown(run, finished)
        reads[finished] = rows_to_finish(cells, django_capture_on_commit_callbacks)
        run.refresh_from_db()
        assert run.status == Run.Status.RUNNING, run.status_reason
        assert run.progress_total - run.progress_done == 3  # the cell left: its answer, its ASS, its judging
        assert GenerationScore.objects.filter(generation__in=cells, metric="ass").count() == NEW_CELLS
    # The same few cells' work reads about as many rows at 2,000 cells as at 200 (never 10x more).
    assert reads[2000] <= reads[200] * 1.2 + 50, reads


@pytest.mark.parametrize("statistics", [True, False], ids=["analyzed", "no-statistics"])
def test_an_ass_batch_reads_its_own_cells_not_every_ass_score(
    statistics: bool, launch: Callable[..., Run], sample_dataset: Dataset, endpoint_factory: EndpointFactory
) -> None:
    """A batch of queued answers reads about as many rows in a run of 2,000 finished cells as in one of 200, with
    or without the planner's statistics. Without them PostgreSQL takes any equality for selective, and the batch's
    look-up of the ASS its cells already have, which named the metric, walked the (metric, status) index: every
    ASS score in the database, for each batch (seen at 10,000 cells: 2,424 index entries read per cell)."""
    if connection.vendor != "postgresql":
        pytest.skip("rows read are PostgreSQL's count; set DATABASE_URL=postgres://...")
    endpoint_factory("cand")
    endpoint_factory("judge")
    encoder = get_encoder()
    reads, by_table = {}, {}
    for finished in (200, 2000):
        run = launch(sample_dataset, models=["cand"], evaluators=["judge"], **SPEC)
        grown(run, finished, statistics=statistics)
        # The last answers of the run wait for their ASS (and so for their AC), as a batch finds them.
        waiting = list(
            Generation.objects.filter(run=run, status=Generation.Status.DONE).order_by("-pk")[:BATCHED_CELLS]
        )
        GenerationScore.objects.filter(generation__in=waiting, metric__in=["ass", "ac"]).delete()
        StageProgress.objects.filter(run=run, stage="similarity").update(done=F("done") - BATCHED_CELLS)
        Run.objects.filter(pk=run.pk).update(progress_done=F("progress_done") - BATCHED_CELLS)
        ass_todo_add(run_id=run.pk, generation_ids=[g.pk for g in waiting])
        before = rows_read_by_table()
        batch = ass_batch(run=run, encoder=encoder)
        by_table[finished] = rows_read_since(before)
        reads[finished] = sum(by_table[finished].values())
        assert (batch.taken, batch.stored) == (BATCHED_CELLS, BATCHED_CELLS)
        assert GenerationScore.objects.filter(generation__in=waiting, metric="ac").count() == BATCHED_CELLS
    assert reads[2000] <= reads[200] * 1.2 + 50, by_table


def test_an_answer_whose_ass_was_never_queued_gets_it_when_the_watchdog_sends_the_work_again(
    launch: Callable[..., Run],
    sample_dataset: Dataset,
    endpoint_factory: EndpointFactory,
    django_capture_on_commit_callbacks: Callable[..., Any],
) -> None:
    """A worker lost between an answer's commit and its queueing for ASS: the stage's re-send queues it."""
    endpoint_factory("cand")
    endpoint_factory("judge")
    run = launch(sample_dataset, models=["cand"], evaluators=["judge"], **SPEC)
    lost = Generation.objects.filter(run=run).order_by("pk").first()
    assert lost is not None
    GenerationScore.objects.filter(generation=lost, metric__in=["ass", "ac"]).delete()
    StageProgress.objects.filter(run=run, stage="similarity").update(done=F("done") - 1)
    Run.objects.filter(pk=run.pk).update(
        status=Run.Status.RUNNING, progress_done=F("progress_done") - 1, progress_at=timezone.now() - timedelta(days=1)
    )
    assert not SimilarityTodo.objects.filter(run=run).exists()
    with django_capture_on_commit_callbacks(execute=True):
        assert run_watch(run_id=run.pk) == "resent"
    run.refresh_from_db()
    assert run.status == Run.Status.DONE, run.status_reason
    assert GenerationScore.objects.filter(generation=lost, metric__in=["ass", "ac"]).count() == 2
    assert not SimilarityTodo.objects.filter(run=run).exists()


def test_the_feeder_reads_a_chunk_not_every_pending_cell(
    sample_dataset: Dataset, endpoint_factory: EndpointFactory, settings: Any
) -> None:
    """Choosing the next chunk of cells to send reads about as many rows with 2,000 cells waiting as with 200."""
    if connection.vendor != "postgresql":
        pytest.skip("rows read are PostgreSQL's count; set DATABASE_URL=postgres://...")
    settings.RUN_QUEUE_HIGH_WATER, settings.RUN_FEED_CHUNK = 40, 20
    model = endpoint_factory("cand")
    question = Question.objects.filter(context__dataset=sample_dataset).first()
    assert question is not None
    reads = {}
    for waiting in (200, 2000):
        run = Run.objects.create(kind=Run.Kind.CDKE, dataset=sample_dataset, spec={}, status=Run.Status.RUNNING)
        cells = [
            Generation(run=run, question=question, model=model, temperature=0.2, condition="divergent", sample_index=i)
            for i in range(waiting + 30)
        ]
        created = Generation.objects.bulk_create(cells)
        # As the feeder leaves a run: 30 cells sent and not answered yet (room for 10 more), its cursor after them.
        Generation.objects.filter(pk__in=[g.pk for g in created[:30]]).update(queued_at=timezone.now())
        with connection.cursor() as cursor:
            cursor.execute("ANALYZE")
        before = rows_read()
        chunk = answers_to_send(run.pk, created[29].pk + 1)
        reads[waiting] = rows_read() - before
        assert chunk == [g.pk for g in created[30:40]]
    assert reads[2000] <= reads[200] * 1.2 + 50, reads


@pytest.mark.django_db(transaction=True)
def test_the_migration_queues_the_answers_of_runs_under_way_that_lack_their_ass() -> None:
    from django.db.migrations.executor import MigrationExecutor

    before = [("scoring", "0008_retest"), ("runs", "0009_run_planned_at")]
    executor = MigrationExecutor(connection)
    executor.migrate(before)
    old = executor.loader.project_state(before).apps
    dataset = old.get_model("corpus", "Dataset").objects.create(name="old", kind="dkd")
    context = old.get_model("corpus", "Context").objects.create(dataset=dataset, key="c", text="t")
    question = old.get_model("corpus", "Question").objects.create(
        dataset=dataset, context=context, key="q", text="q?", ground_truth="a"
    )
    model = old.get_model("runs", "ModelEndpoint").objects.create(name="m", provider="openai_compatible")
    runs, cells = old.get_model("runs", "Run").objects, old.get_model("runs", "Generation").objects

    def cell(run: Any, i: int, status: str = "done") -> Any:
        return cells.create(
            run=run,
            question=question,
            model=model,
            temperature=0.2,
            condition="divergent",
            sample_index=i,
            status=status,
        )

    running = runs.create(kind="cdke", dataset=dataset, status="running", spec={"evaluators": ["m"]})
    with_ass, without = cell(running, 0), cell(running, 1)
    cell(running, 2, "pending")
    old.get_model("scoring", "GenerationScore").objects.create(generation=with_ass, scorer="e", metric="ass", value=1)
    finished = runs.create(kind="cdke", dataset=dataset, status="done", spec={"evaluators": ["m"]})
    cell(finished, 0)
    graphs_only = runs.create(kind="kg", dataset=dataset, status="running", spec={"kg": {}})
    cell(graphs_only, 0)
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(executor.loader.graph.leaf_nodes())
    # Only the running CDK-E run's answered cell without ASS: not its pending cell, nor a finished or graphs-only run's.
    assert list(SimilarityTodo.objects.values_list("generation_id", "run_id")) == [(without.pk, running.pk)]
