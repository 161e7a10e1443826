"""An answer is judged in the task that stored it (issue 15, goal 2).

Every answered cell sent one more task per evaluator, which read the cell, its run and the evaluator again: a Celery
message each way and three queries a cell, for work the answering task could do with what it holds. What cannot be
done there, a provider that keeps failing or anything unexpected, goes to the evaluator's own task, which retries
and fails as before; what was scored stays scored and nothing is counted twice."""

from collections.abc import Callable
from typing import Any

import pytest

from evalplatform.corpus.models import Dataset
from evalplatform.runs.models import Generation, ModelEndpoint, Run, StageProgress
from evalplatform.runs.spec import RunSpec
from scoring.cdke import tasks as cdke_tasks
from scoring.cdke.judge import JUDGE_STAGE
from scoring.cdke.tasks import generation_score_task, judge_where_answered
from scoring.models import GenerationScore
from tests.runs.judge_server import JudgeServer
from tests.runs.test_round_trips import statements_seen

pytestmark = pytest.mark.django_db
EndpointFactory = Callable[..., ModelEndpoint]
Metric = GenerationScore.Metric
Sent = list[tuple[tuple[Any, ...], dict[str, Any]]]


@pytest.fixture
def score_tasks_sent(monkeypatch: pytest.MonkeyPatch) -> Sent:
    """The evaluators' tasks sent, recorded and not run."""
    sent: Sent = []

    def record(args: tuple[Any, ...] = (), kwargs: Any = None, **options: Any) -> None:
        sent.append((tuple(args), options))

    monkeypatch.setattr(generation_score_task, "apply_async", record)
    return sent


def _undo_judging(run: Run) -> Generation:
    """The run's first cell as its answering task holds it, with no evaluator's unit of it judged yet."""
    cell = Generation.objects.select_related("run", "question__context", "model").filter(run=run).first()
    assert cell is not None
    judged = GenerationScore.objects.filter(generation=cell).exclude(metric=Metric.ASS)
    units = judged.filter(metric=Metric.LAV).count()
    judged.delete()
    StageProgress.objects.filter(run=run, stage=JUDGE_STAGE).update(done=0)
    Run.objects.filter(pk=run.pk).update(progress_done=run.progress_done - units, status=Run.Status.RUNNING)
    cell.run.refresh_from_db()
    return cell


def test_every_evaluator_judges_in_the_answering_task_and_sends_no_task(
    launch: Callable[..., Run], sample_dataset: Dataset, endpoint_factory: EndpointFactory, score_tasks_sent: Sent
) -> None:
    endpoint_factory("cand")
    endpoint_factory("judge")
    endpoint_factory("judge2")
    run = launch(sample_dataset, models=["cand"], evaluators=["judge", "judge2"], limit=2)
    assert score_tasks_sent == []
    assert run.status == Run.Status.DONE and run.progress_done == run.progress_total
    lav = GenerationScore.objects.filter(generation__run=run, metric=Metric.LAV)
    assert sorted(lav.values_list("scorer", flat=True)) == ["judge", "judge", "judge2", "judge2"]


def test_a_provider_that_keeps_failing_hands_the_rest_of_the_unit_to_the_evaluators_task(
    launch: Callable[..., Run],
    sample_dataset: Dataset,
    endpoint_factory: EndpointFactory,
    judge_server: JudgeServer,
    score_tasks_sent: Sent,
) -> None:
    endpoint_factory("cand")
    judge = endpoint_factory("judge")  # three attempts a call
    run = launch(sample_dataset, models=["cand"], evaluators=["judge"], limit=1, use_cache=False)
    cell = _undo_judging(run)
    judge_server.inject("lav", 500, 500, 500)
    judge_where_answered(cell, RunSpec.from_dict(cell.run.spec), last_attempt=False)
    assert [args for args, _ in score_tasks_sent] == [(cell.pk, judge.pk)]
    assert score_tasks_sent[0][1]["countdown"] > 0  # after a backoff, as the task's own retry
    stored = set(GenerationScore.objects.filter(generation=cell, scorer="judge").values_list("metric", flat=True))
    assert Metric.LAV not in stored and {Metric.FC, Metric.ACC, Metric.CM} <= stored  # what was scored stays
    assert StageProgress.objects.get(run=run, stage=JUDGE_STAGE).done == 0
    calls_before = judge_server.count()
    generation_score_task.apply(args=(cell.pk, judge.pk))  # the evaluator's task: only what is missing is asked
    asked = judge_server.count() - calls_before
    assert set(asked) == {"lav"}
    assert StageProgress.objects.get(run=run, stage=JUDGE_STAGE).done == 1
    assert Run.objects.get(pk=run.pk).status == Run.Status.DONE


def test_an_unexpected_error_while_judging_leaves_the_answer_and_sends_the_evaluators_task(
    launch: Callable[..., Run],
    sample_dataset: Dataset,
    endpoint_factory: EndpointFactory,
    score_tasks_sent: Sent,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    endpoint_factory("cand")
    judge = endpoint_factory("judge")
    run = launch(sample_dataset, models=["cand"], evaluators=["judge"], limit=1)
    cell = _undo_judging(run)

    def broken(**kwargs: object) -> None:
        raise RuntimeError("a bug in a metric")

    monkeypatch.setattr(cdke_tasks, "generation_score", broken)
    judge_where_answered(cell, RunSpec.from_dict(cell.run.spec), last_attempt=False)
    assert [args for args, _ in score_tasks_sent] == [(cell.pk, judge.pk)]
    assert Generation.objects.get(pk=cell.pk).status == Generation.Status.DONE
    assert not GenerationScore.objects.filter(generation=cell, scorer="judge").exists()


def test_a_cell_answered_here_is_judged_without_reading_its_scores_before_the_lock(
    launch: Callable[..., Run], sample_dataset: Dataset, endpoint_factory: EndpointFactory, score_tasks_sent: Sent
) -> None:
    """The evaluator's task reads the unit's rows to ask only for what is missing; a cell this task has just
    answered has none, so only the store reads them, once, under the cell's lock."""
    endpoint_factory("cand")
    endpoint_factory("judge")
    run = launch(sample_dataset, models=["cand"], evaluators=["judge"], limit=1)
    cell = _undo_judging(run)
    with statements_seen() as seen:
        judge_where_answered(cell, RunSpec.from_dict(cell.run.spec), last_attempt=True, unjudged=True)
    assert sum(1 for sql, _ in seen if sql.startswith("SELECT") and '"scoring_generationscore"' in sql) == 1
    assert StageProgress.objects.get(run=run, stage=JUDGE_STAGE).done == 1 and score_tasks_sent == []
