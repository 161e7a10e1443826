"""Provider faults during a run: timeouts, 429 and 5xx are retried; what keeps failing is recorded as
failed, garbage judge output as unparseable with its raw text, and neither is ever averaged as 0."""

from collections.abc import Callable
from typing import Any

import pytest

from evalplatform.corpus.models import Dataset
from evalplatform.runs.launch import run_launch
from evalplatform.runs.models import Generation, ModelEndpoint, Run
from scoring.cdke.results import result_rows
from scoring.models import GenerationScore
from tests.runs.judge_server import JudgeServer

pytestmark = pytest.mark.django_db
SPEC = {"conditions": ["divergent"], "per_context": 1, "models": ["cand"], "evaluators": ["judge-a"]}


@pytest.fixture
def run_once(
    django_capture_on_commit_callbacks: Callable[..., Any],
    sample_dataset: Dataset,
    endpoint_factory: Callable[..., ModelEndpoint],
) -> Callable[[], Run]:
    endpoint_factory("cand", model_id="cand")
    endpoint_factory("judge-a")

    def go() -> Run:
        with django_capture_on_commit_callbacks(execute=True):
            run = run_launch(dataset=sample_dataset, spec=SPEC)
        run.refresh_from_db()
        return run

    return go


def test_timeout_then_success_is_retried_and_answered(run_once: Callable[[], Run], judge_server: JudgeServer) -> None:
    judge_server.inject("answer", "timeout")
    run = run_once()
    assert run.status == Run.Status.DONE
    assert Generation.objects.filter(run=run, status="done").count() == 3
    assert judge_server.count()["answer"] == 4  # the timed-out request, then three answers


def test_429_then_success_is_retried_and_answered(run_once: Callable[[], Run], judge_server: JudgeServer) -> None:
    judge_server.inject("answer", 429, 429)
    run = run_once()
    assert Generation.objects.filter(run=run, status="done").count() == 3
    assert judge_server.count()["answer"] == 5


def test_persistent_500_fails_that_cell_only_and_is_counted(
    run_once: Callable[[], Run], judge_server: JudgeServer
) -> None:
    judge_server.inject("answer", *([500] * 40))
    run = run_once()
    failed = Generation.objects.filter(run=run, status="failed")
    assert failed.count() == 3
    assert "500" in failed.first().error  # type: ignore[union-attr]
    assert run.status == Run.Status.DONE
    assert run.progress_failed == 9  # three answers, their three ASS and their three scoring units
    (row,) = result_rows(run)
    assert (row.n, row.n_failed) == (3, 3)
    # Among scored answers there is no LAV; as paper C counts it (valid / all answers) it is 0 of 3, failures beside.
    assert row.metrics["lav_scored"].mean is None and row.metrics["lav_scored"].n_failed == 3
    assert row.metrics["lav"].mean == 0.0 and (row.metrics["lav"].n, row.metrics["lav"].n_failed) == (3, 3)


def test_garbage_judge_output_is_stored_as_unparseable_never_as_zero(
    run_once: Callable[[], Run], judge_server: JudgeServer
) -> None:
    judge_server.inject("lav", "garbage", "garbage")  # the first call and its repair
    run = run_once()
    bad = GenerationScore.objects.get(generation__run=run, metric="lav", status="unparseable")
    assert bad.value is None
    assert bad.raw_output == "this is not what was asked for"
    (row,) = result_rows(run)
    assert row.n_unparseable == 1
    assert row.metrics["lav_scored"].n == 2 and row.metrics["lav_scored"].mean == 1.0
    assert row.metrics["lav_scored"].n_unparseable == 1
    # Paper C's LAV: 2 valid of 3 answers, the unparseable one counted beside.
    assert row.metrics["lav"].mean == pytest.approx(2 / 3) and row.metrics["lav"].n == 3
    assert row.metrics["lav"].n_unparseable == 1


def test_one_garbage_output_is_repaired_by_the_second_call(
    run_once: Callable[[], Run], judge_server: JudgeServer
) -> None:
    judge_server.inject("accuracy", "garbage")
    run = run_once()
    assert not GenerationScore.objects.filter(generation__run=run, status="unparseable").exists()
    repaired = [s for s in GenerationScore.objects.filter(generation__run=run, metric="acc") if s.details["calls"] == 2]
    assert len(repaired) == 1 and repaired[0].value == 1.0
    assert judge_server.count()["accuracy"] == 4
