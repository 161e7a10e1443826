"""A run that cannot get stuck or lose work: the watchdog, chunked feeding, unexpected errors, per-metric scoring,
retrying a finished run's failures, the statements cache, the ground truth each score used, counted progress."""

import json
from collections.abc import Callable
from datetime import timedelta
from typing import Any

import pytest
from django.test import Client
from django.utils import timezone

from evalplatform.corpus.models import Dataset
from evalplatform.roles import RESEARCHER, user_add_role
from evalplatform.runs.launch import run_launch, run_resume
from evalplatform.runs.models import Generation, ModelEndpoint, Run, StageProgress
from evalplatform.runs.spec import SpecError
from evalplatform.runs.watchdog import run_watch
from scoring.cdke.tasks import answers_to_send
from scoring.models import GenerationScore, StatementSet
from tests.runs.judge_server import JudgeServer

pytestmark = pytest.mark.django_db
EndpointFactory = Callable[..., ModelEndpoint]
ONE = {"conditions": ["divergent"], "temperatures": [0.2]}


@pytest.fixture
def launch(django_capture_on_commit_callbacks: Callable[..., Any]) -> Callable[..., Run]:
    def go(dataset: Dataset, **spec: object) -> Run:
        with django_capture_on_commit_callbacks(execute=True):
            run = run_launch(dataset=dataset, spec=ONE | spec)
        run.refresh_from_db()
        return run

    return go


def _stale(run: Run, minutes: int = 20) -> None:
    ago = timezone.now() - timedelta(minutes=minutes)
    Run.objects.filter(pk=run.pk).update(progress_at=ago)
    Generation.objects.filter(run=run, status="pending").update(queued_at=ago)


def test_the_watchdog_resends_the_work_of_a_run_whose_worker_died(
    sample_dataset: Dataset, endpoint_factory: EndpointFactory, django_capture_on_commit_callbacks: Callable[..., Any]
) -> None:
    endpoint_factory("cand")
    run = run_launch(dataset=sample_dataset, spec=ONE | {"models": ["cand"], "limit": 3}, enqueue=False)
    Run.objects.filter(pk=run.pk).update(status=Run.Status.RUNNING, started_at=timezone.now())
    Generation.objects.filter(run=run).update(queued_at=timezone.now())  # sent, then lost with their worker
    assert run_watch(run_id=run.pk) == "progressing"  # not stale yet
    _stale(run)
    with django_capture_on_commit_callbacks(execute=True):
        assert run_watch(run_id=run.pk) == "resent"
    run.refresh_from_db()
    assert run.status == Run.Status.DONE and run.progress_done == run.progress_total == 3 * 2  # answers and ASS


def test_a_run_that_never_progresses_fails_with_the_reason(
    sample_dataset: Dataset, endpoint_factory: EndpointFactory
) -> None:
    endpoint_factory("cand")
    run = run_launch(dataset=sample_dataset, spec=ONE | {"models": ["cand"], "limit": 2}, enqueue=False)
    Run.objects.filter(pk=run.pk).update(status=Run.Status.RUNNING, watchdog_kicks=3)
    _stale(run)
    assert run_watch(run_id=run.pk) == "failed"
    run.refresh_from_db()
    assert run.status == Run.Status.FAILED and "no progress" in run.status_reason and "run_resume" in run.status_reason


def test_answers_are_fed_in_chunks_up_to_the_high_water_mark(
    sample_dataset: Dataset, endpoint_factory: EndpointFactory, settings: Any
) -> None:
    endpoint_factory("cand")
    settings.RUN_FEED_CHUNK, settings.RUN_QUEUE_HIGH_WATER = 4, 6
    run = run_launch(dataset=sample_dataset, spec=ONE | {"models": ["cand"], "limit": 10}, enqueue=False)
    first = answers_to_send(run.pk)
    assert first == sorted(first) and len(first) == 4  # a chunk, in plan order
    Generation.objects.filter(pk__in=first).update(queued_at=timezone.now())
    second = answers_to_send(run.pk)
    assert len(second) == 2 and min(second) > max(first)  # only up to 6 in flight
    Generation.objects.filter(pk__in=second).update(queued_at=timezone.now())
    assert answers_to_send(run.pk) == []
    Generation.objects.filter(pk__in=first[:3]).update(status="done")  # three answered: room for three more
    assert len(answers_to_send(run.pk)) == 3


def test_an_unexpected_error_fails_the_cell_with_its_cause(
    launch: Callable[..., Run], sample_dataset: Dataset, endpoint_factory: EndpointFactory
) -> None:
    endpoint_factory("cand", provider="no-such-provider")
    run = launch(sample_dataset, models=["cand"], limit=2)
    assert run.status == Run.Status.DONE and run.progress_failed == 2 * 2  # each cell's answer and its ASS
    errors = set(Generation.objects.filter(run=run).values_list("error", flat=True))
    assert errors == {"unexpected error: ValueError: endpoint cand: unknown provider 'no-such-provider'"}


def test_imported_answers_cannot_be_asked(sample_dataset: Dataset, endpoint_factory: EndpointFactory) -> None:
    endpoint_factory("old-answers", provider=ModelEndpoint.Provider.IMPORTED)
    with pytest.raises(SpecError, match="imported with a dataset and cannot be asked"):
        run_launch(dataset=sample_dataset, spec=ONE | {"models": ["old-answers"]}, enqueue=False)


def test_one_failing_judge_call_fails_its_metric_alone_and_a_retry_asks_only_for_it(
    launch: Callable[..., Run],
    sample_dataset: Dataset,
    endpoint_factory: EndpointFactory,
    judge_server: JudgeServer,
    django_capture_on_commit_callbacks: Callable[..., Any],
) -> None:
    endpoint_factory("cand")
    endpoint_factory("judge", max_attempts=1)
    judge_server.inject("completeness", 400)  # a permanent error on one call
    run = launch(sample_dataset, models=["cand"], evaluators=["judge"], limit=1)
    assert run.status == Run.Status.DONE and run.progress_failed == 1
    statuses = dict(GenerationScore.objects.filter(generation__run=run, scorer="judge").values_list("metric", "status"))
    assert statuses == {"fc": "ok", "ac": "ok", "acc": "ok", "cm": "failed", "lav": "ok"}
    before = judge_server.count()
    with django_capture_on_commit_callbacks(execute=True):
        run_resume(run=run, retry_failed=True)  # a finished run: only its failed metric is asked again
    run.refresh_from_db()
    after = judge_server.count()
    assert after["completeness"] == before["completeness"] + 1
    assert sum(after.values()) == sum(before.values()) + 1  # LAV came back from the cache
    assert run.status == Run.Status.DONE and run.progress_failed == 0 and run.progress_done == run.progress_total
    assert GenerationScore.objects.filter(generation__run=run, status="ok").count() == 6  # ass + five, each once


def test_a_finished_run_can_be_retried_from_the_api(
    launch: Callable[..., Run],
    sample_dataset: Dataset,
    endpoint_factory: EndpointFactory,
    judge_server: JudgeServer,
    django_capture_on_commit_callbacks: Callable[..., Any],
) -> None:
    endpoint_factory("cand", max_attempts=1)
    judge_server.inject("answer", 400)
    run = launch(sample_dataset, models=["cand"], limit=1)
    assert run.status == Run.Status.DONE and run.progress_failed == 2  # the answer and its ASS
    researcher = _researcher(sample_dataset)
    client = Client()
    client.force_login(researcher)
    refused = client.post(f"/api/runs/{run.pk}/resume/", {}, content_type="application/json")
    assert refused.status_code == 400 and "retry_failed" in refused.json()["status"]
    with django_capture_on_commit_callbacks(execute=True):
        ok = client.post(f"/api/runs/{run.pk}/resume/", {"retry_failed": True}, content_type="application/json")
    assert ok.status_code == 200
    assert Generation.objects.get(run=run).status == "done"


def _researcher(dataset: Dataset) -> Any:
    from django.contrib.auth.models import User

    user = User.objects.create_user("res")
    user_add_role(user=user, role=RESEARCHER)
    dataset.created_by = user
    dataset.save()
    return user


def test_the_same_answer_to_two_questions_is_split_twice(
    launch: Callable[..., Run], sample_dataset: Dataset, endpoint_factory: EndpointFactory, judge_server: JudgeServer
) -> None:
    """The extraction prompt holds the question: keyed by the text alone, one extraction served every question."""
    endpoint_factory("cand")
    endpoint_factory("judge")
    sample_dataset.questions.update(ground_truth="The same ground truth.")
    launch(sample_dataset, models=["cand"], evaluators=["judge"], limit=2)
    truth_sets = StatementSet.objects.filter(question__isnull=False)
    assert truth_sets.count() == 2 and truth_sets.values("text_hash").distinct().count() == 2
    assert judge_server.count()["statements"] == 4  # two ground truths, two answers


def test_every_score_keeps_the_ground_truth_it_was_computed_against(
    launch: Callable[..., Run], sample_dataset: Dataset, endpoint_factory: EndpointFactory, judge_server: JudgeServer
) -> None:
    endpoint_factory("cand")
    endpoint_factory("judge")
    run = launch(sample_dataset, models=["cand"], evaluators=["judge"], limit=1)
    generation = Generation.objects.get(run=run)
    old = generation.question.ground_truth
    generation.question.ground_truth = "A new ground truth from a later consensus."
    generation.question.save()
    assert set(GenerationScore.objects.filter(generation=generation).values_list("ground_truth", flat=True)) == {old}
    client = Client()
    client.force_login(_researcher(sample_dataset))
    detail = client.get(f"/api/runs/{run.pk}/generations/{generation.pk}/").json()
    assert detail["ground_truth"] == "A new ground truth from a later consensus." and detail[
        "earlier_ground_truths"
    ] == [old]
    export = client.get(f"/api/runs/{run.pk}/export/scores.jsonl")
    rows = [json.loads(line) for line in b"".join(export.streaming_content).decode().splitlines()]  # type: ignore[attr-defined]
    assert {row["ground_truth"] for row in rows} == {old}


def test_progress_is_counted_once_per_unit(
    launch: Callable[..., Run], sample_dataset: Dataset, endpoint_factory: EndpointFactory, judge_server: JudgeServer
) -> None:
    from evalplatform.runs.clients import client_for
    from scoring.cdke.judge import JudgeContext, generation_score
    from scoring.cdke.judge_prompts import JUDGE_PROMPT_SETS

    endpoint_factory("cand")
    judge = endpoint_factory("judge")
    run = launch(sample_dataset, models=["cand"], evaluators=["judge"], limit=2)
    stages = dict(StageProgress.objects.filter(run=run).values_list("stage", "done"))
    assert stages == {"answer": 2, "similarity": 2, "judge": 2} and run.progress_done == run.progress_total == 6
    generation = Generation.objects.filter(run=run).first()
    assert generation is not None
    context = JudgeContext(evaluator=judge, client=client_for(judge), prompts=JUDGE_PROMPT_SETS["2"])
    assert generation_score(generation=generation, judge=context, fc_weight=0.75) == []
    run.refresh_from_db()
    assert run.progress_done == 6  # a redelivered scoring task counts nothing twice
