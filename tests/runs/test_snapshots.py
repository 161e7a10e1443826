"""A run's results are computed once and read back as they were, in one query, while its progress stands."""

from collections.abc import Callable
from typing import Any

import pytest

from evalplatform.corpus.models import Dataset
from evalplatform.runs.launch import run_launch
from evalplatform.runs.models import ModelEndpoint, Run
from scoring.cdke.results import context_correlations, error_class_rows, result_rows
from scoring.models import RunSnapshot
from scoring.selectors import graph_score_rows
from tests.runs.judge_server import JudgeServer

pytestmark = pytest.mark.django_db


@pytest.fixture
def finished(
    sample_dataset: Dataset,
    endpoint_factory: Callable[..., ModelEndpoint],
    judge_server: JudgeServer,
    django_capture_on_commit_callbacks: Callable[..., Any],
) -> Run:
    endpoint_factory("cand")
    endpoint_factory("judge")
    spec = {"models": ["cand"], "evaluators": ["judge"], "conditions": ["divergent", "real"], "per_context": 2}
    with django_capture_on_commit_callbacks(execute=True):
        run = run_launch(dataset=sample_dataset, spec=spec)
    run.refresh_from_db()
    assert run.status == Run.Status.DONE
    return run


def test_the_last_unit_warms_the_results_and_they_read_back_equal(
    finished: Run, django_assert_num_queries: Callable[..., Any]
) -> None:
    keys = set(RunSnapshot.objects.filter(run=finished).values_list("key", flat=True))
    assert any("result_rows" in k for k in keys) and any("graph_score_rows" in k for k in keys)
    for function in (result_rows, context_correlations, error_class_rows, graph_score_rows):
        fresh = function.__wrapped__(finished)  # type: ignore[union-attr]
        with django_assert_num_queries(1):
            kept = function(finished)
        assert kept == fresh, function.__name__
    assert result_rows(finished)[0].metrics["lav"].ci == fresh_ci(finished)


def fresh_ci(run: Run) -> Any:
    return result_rows.__wrapped__(run)[0].metrics["lav"].ci  # type: ignore[attr-defined]


def test_results_are_computed_again_when_the_run_moves(finished: Run) -> None:
    kept = RunSnapshot.objects.get(run=finished, key__contains="result_rows")
    Run.objects.filter(pk=finished.pk).update(status=Run.Status.RUNNING)  # a retry sent the run back to work...
    finished.refresh_from_db()
    result_rows(finished)  # ...its results are computed again
    assert RunSnapshot.objects.get(pk=kept.pk).status == Run.Status.RUNNING
    Run.objects.filter(pk=finished.pk).update(progress_done=finished.progress_done - 1)
    finished.refresh_from_db()
    result_rows(finished)  # a running run's results, young: served as they were although a unit moved
    assert RunSnapshot.objects.get(pk=kept.pk).progress_done == kept.progress_done
    RunSnapshot.objects.filter(pk=kept.pk).update(computed_at=kept.computed_at.replace(year=2000))
    result_rows(finished)
    assert RunSnapshot.objects.get(pk=kept.pk).progress_done == finished.progress_done
