"""A worker killed in the middle of a run: the run resumes with nothing duplicated or lost, and what
had been asked before the kill is served from the response cache."""

import os
import signal
import subprocess
import time
from collections import Counter
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from evalplatform.corpus.models import Dataset
from evalplatform.runs.launch import run_launch, run_resume
from evalplatform.runs.models import Generation, ModelEndpoint, Run
from scoring.models import GenerationScore
from tests.runs.judge_server import JudgeServer, prompt_kind
from tests.workers import fresh_queue, purge_queue, start_worker, tasks_not_eager

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.worker]
QUEUE = fresh_queue("test-resume")


@pytest.fixture
def killable_worker() -> Iterator[Callable[[], subprocess.Popen[bytes]]]:
    started: list[subprocess.Popen[bytes]] = []

    def start() -> subprocess.Popen[bytes]:
        started.append(start_worker(QUEUE))
        return started[-1]

    yield start
    for process in started:
        if process.poll() is None:
            process.kill()
            process.wait(timeout=30)
    purge_queue(QUEUE)


def _wait(condition: Callable[[], bool], seconds: float, what: str) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.2)


def test_killed_worker_then_resume_loses_and_duplicates_nothing(
    sample_dataset: Dataset,
    endpoint_factory: Callable[..., ModelEndpoint],
    judge_server: JudgeServer,
    killable_worker: Callable[[], subprocess.Popen[bytes]],
    django_capture_on_commit_callbacks: Callable[..., Any],
) -> None:
    endpoint_factory("cand", model_id="cand", timeout_s=30.0)
    endpoint_factory("judge-a", timeout_s=90.0)
    # The worker is killed while the first completeness judgement is in flight: the answer and the
    # judge calls made before it for that generation are in the cache, its scores not yet stored.
    judge_server.hold_kind = "completeness"
    worker = killable_worker()
    with tasks_not_eager(QUEUE), django_capture_on_commit_callbacks(execute=True):
        run = run_launch(
            dataset=sample_dataset,
            spec={"models": ["cand"], "evaluators": ["judge-a"], "per_context": 2, "conditions": ["divergent"]},
        )
    # A generous bound: a worker on a busy machine takes a while to load torch and the encoder.
    assert judge_server.held.wait(150), "the worker never reached the held judge call"
    os.kill(worker.pid, signal.SIGKILL)
    worker.wait(timeout=30)
    judge_server.release.set()
    run.refresh_from_db()
    assert run.status == Run.Status.RUNNING
    assert run.progress_done < run.progress_total
    before = Counter(prompt for _, prompt in judge_server.prompts())

    worker = killable_worker()
    with tasks_not_eager(QUEUE), django_capture_on_commit_callbacks(execute=True):
        run_resume(run=run)
    _wait(lambda: Run.objects.get(pk=run.pk).status == Run.Status.DONE, 180, "the resumed run to finish")

    run.refresh_from_db()
    assert run.progress_done == run.progress_total == 6 * 3  # per answer: itself, its ASS, one evaluator
    assert Generation.objects.filter(run=run).count() == 6
    assert Generation.objects.filter(run=run, status="done").count() == 6
    per_unit = Counter(
        GenerationScore.objects.filter(generation__run=run).values_list("generation_id", "scorer", "metric")
    )
    assert len(per_unit) == 6 * 6 and set(per_unit.values()) == {1}  # ass + five judge metrics, each once
    after = Counter(prompt for _, prompt in judge_server.prompts())
    repeated = [p for p, n in after.items() if n > 1]
    # Only the judgement cut off by the kill was asked twice; everything asked before came from the cache.
    assert len(repeated) == 1 and prompt_kind(repeated[0]) == "completeness"
    assert sum(after.values()) - sum(before.values()) == len(after) - len(before) + 1
