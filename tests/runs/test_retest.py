"""Test–retest of a finished run's judges against a real OpenAI-compatible server: the retest asks the judge again
(the response cache is neither read nor written), stores its verdicts apart from the run's, is idempotent, and runs
through the Celery task and the command."""

import json
from collections.abc import Callable
from io import StringIO
from typing import Any

import pytest
from django.core.management import call_command

from evalplatform.audit.models import AuditEvent
from evalplatform.corpus.models import Dataset
from evalplatform.runs.models import CachedResponse, ModelEndpoint, Run
from scoring.cdke.retest import RetestError, retest_rows, retest_run_inline, retest_start
from scoring.models import GenerationScore, RetestBatch, RetestScore
from tests.runs.judge_server import JudgeServer

pytestmark = pytest.mark.django_db
INVALID = ("reply", json.dumps({"verdict": "invalid"}))


def finished_run(launch: Callable[..., Run], dataset: Dataset, factory: Callable[..., ModelEndpoint]) -> Run:
    factory("cand")
    factory("judge-a")
    run = launch(dataset, models=["cand"], evaluators=["judge-a"], limit=4)
    assert run.status == Run.Status.DONE
    return run


def scores_of(run: Run) -> list[tuple[Any, ...]]:
    return list(
        GenerationScore.objects.filter(generation__run=run)
        .order_by("pk")
        .values_list("pk", "generation_id", "scorer", "metric", "value", "status", "raw_output")
    )


def test_a_retest_asks_the_judge_again_with_the_cache_off_and_leaves_the_run_alone(
    launch: Callable[..., Run],
    sample_dataset: Dataset,
    endpoint_factory: Callable[..., ModelEndpoint],
    judge_server: JudgeServer,
) -> None:
    run = finished_run(launch, sample_dataset, endpoint_factory)
    before, cached = scores_of(run), CachedResponse.objects.count()
    asked = judge_server.count()
    judge_server.inject("lav", INVALID)  # the judge answers differently the second time, once
    batch = retest_start(run=run, sample_size=4, seed=7)
    assert sorted(batch.generations) == sorted(run.generations.values_list("pk", flat=True))
    assert retest_run_inline(batch) == 4
    now = judge_server.count()
    # Every Acc, Cm and LAV request was sent again (with the cache on, all 12 would have been cache hits) ...
    assert {k: now[k] - asked[k] for k in ("accuracy", "completeness", "lav")} == {
        "accuracy": 4,
        "completeness": 4,
        "lav": 4,
    }
    assert now["statements"] == asked["statements"] and now["classify"] == asked["classify"]  # FC is not re-judged
    assert now["error_type"] == asked["error_type"]  # nor is the error type asked
    # ... nothing was written to the cache, and the run's scores are exactly as they were.
    assert CachedResponse.objects.count() == cached
    assert scores_of(run) == before
    assert RetestScore.objects.filter(batch=batch).count() == 12
    lav = RetestScore.objects.filter(batch=batch, metric="lav")
    assert sorted(v or 0.0 for v in lav.values_list("value", flat=True)) == [0.0, 1.0, 1.0, 1.0]
    assert not lav.exclude(status="ok").exists()
    batch.refresh_from_db()
    assert batch.finished_at is not None
    rows = {(r.evaluator, r.metric): r for r in retest_rows(batch, n_boot=50)}
    # The first occasion said valid to all four, the second to three: 3/4 the same; kappa = 0 (p_e = 4*3/16 = 3/4).
    lav_row = rows[("judge-a", "lav")]
    assert (lav_row.n, lav_row.exact_agreement, lav_row.agreement.value) == (4, 0.75, 0.0)
    assert lav_row.changed == (lav.get(value=0.0).generation_id,)
    assert rows[("judge-a", "acc")].exact_agreement == 1.0  # the same score both times: no variance, ICC undefined
    assert rows[("judge-a", "acc")].agreement.value is None and rows[("judge-a", "acc")].agreement.reason


def test_a_retest_is_idempotent_and_resumes_what_is_missing(
    launch: Callable[..., Run],
    sample_dataset: Dataset,
    endpoint_factory: Callable[..., ModelEndpoint],
    judge_server: JudgeServer,
) -> None:
    run = finished_run(launch, sample_dataset, endpoint_factory)
    batch = retest_start(run=run, sample_size=2, seed=1)
    assert len(batch.generations) == 2
    retest_run_inline(batch)
    # One stored verdict is lost (a killed worker): a second start finds the same batch and asks only for that one.
    RetestScore.objects.filter(batch=batch, metric="cm").order_by("pk").first().delete()  # type: ignore[union-attr]
    asked = judge_server.count()
    again = retest_start(run=run, sample_size=2, seed=1)
    assert again.pk == batch.pk and again.generations == batch.generations
    assert retest_run_inline(again) == 1
    now = judge_server.count()
    assert (now["completeness"] - asked["completeness"], now["accuracy"] - asked["accuracy"]) == (1, 0)
    assert now["lav"] == asked["lav"]
    assert retest_run_inline(again) == 0 and judge_server.count() == now
    assert RetestScore.objects.filter(batch=batch).count() == 6
    assert RetestBatch.objects.filter(run=run).count() == 1
    # Every start is audited; another seed draws another sample.
    assert AuditEvent.objects.filter(action="run.retest").count() == 2
    assert retest_start(run=run, sample_size=2, seed=2).pk != batch.pk


def test_only_a_finished_cdke_run_with_judges_is_retested(
    launch: Callable[..., Run],
    sample_dataset: Dataset,
    endpoint_factory: Callable[..., ModelEndpoint],
    judge_server: JudgeServer,
) -> None:
    run = finished_run(launch, sample_dataset, endpoint_factory)
    Run.objects.filter(pk=run.pk).update(status=Run.Status.RUNNING)
    run.refresh_from_db()
    with pytest.raises(RetestError, match="finished"):
        retest_start(run=run, sample_size=2)
    Run.objects.filter(pk=run.pk).update(status=Run.Status.DONE)
    run.refresh_from_db()
    with pytest.raises(RetestError):
        retest_start(run=run, sample_size=0)


def test_the_command_runs_the_retest_through_the_task_and_prints_the_agreement(
    launch: Callable[..., Run],
    sample_dataset: Dataset,
    endpoint_factory: Callable[..., ModelEndpoint],
    judge_server: JudgeServer,
    django_capture_on_commit_callbacks: Callable[..., Any],
) -> None:
    run = finished_run(launch, sample_dataset, endpoint_factory)
    asked = judge_server.count()
    out = StringIO()
    with django_capture_on_commit_callbacks(execute=True):
        call_command("retest_judges", str(run.pk), "--sample", "3", "--seed", "5", "--sync", stdout=out)
    text = out.getvalue()
    assert judge_server.count()["lav"] - asked["lav"] == 3
    assert "retest" in text and "judge-a" in text and "kappa" in text and "icc(2,1)" in text
    assert "# fingerprint " in text
    assert RetestScore.objects.filter(batch__run=run).count() == 9


def test_an_unexpected_error_fails_the_retest_unit_with_its_cause_instead_of_leaving_it_missing(
    launch: Callable[..., Run],
    sample_dataset: Dataset,
    endpoint_factory: Callable[..., ModelEndpoint],
    judge_server: JudgeServer,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from scoring.cdke import retest, tasks

    run = finished_run(launch, sample_dataset, endpoint_factory)
    batch = retest_start(run=run, sample_size=1, seed=0)

    def broken(*args: Any, **kwargs: Any) -> None:
        raise RuntimeError("a bug nobody foresaw")

    monkeypatch.setattr(retest, "judge_metrics", broken)
    (generation_id,) = batch.generations
    evaluator_id = ModelEndpoint.objects.get(name="judge-a").pk
    tasks.retest_score_task.apply(args=(batch.pk, generation_id, evaluator_id))
    rows = RetestScore.objects.filter(batch=batch)
    assert sorted(rows.values_list("metric", flat=True)) == sorted(batch.metrics)
    assert {r.status for r in rows} == {"failed"} and all(r.value is None for r in rows)
    assert all("unexpected error: RuntimeError: a bug nobody foresaw" in r.raw_output for r in rows)
    batch.refresh_from_db()
    assert batch.finished_at is not None  # nothing left pending: the report counts them as missing
