"""A run's results do not depend on how many workers ran it (issue 15: "identical, same cache, same seeds, whether it
ran on one worker or on four"). The same run is made twice against the same deterministic provider, with the
response cache off so that every call is really made both times: once on one worker process, once on four at
once. Every cell's answer, every score (value and status) and every Table 2 cell (mean, interval, counts) must be
the same; with four workers the answers arrive in another order, ASS batches hold other answers, and several
cells of one question ask for its ground truth's statements at the same moment."""

import subprocess
import time
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import ExitStack
from typing import Any

import pytest

from evalplatform.corpus.models import Dataset
from evalplatform.runs.launch import run_launch
from evalplatform.runs.models import Generation, ModelEndpoint, Run
from scoring.cdke.results import results_intervals
from scoring.models import GenerationScore
from tests.runs.judge_server import JudgeServer
from tests.workers import fresh_queue, running_worker, tasks_not_eager

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.worker]
# Two models, two temperatures and two questions per context: four cells share each question (its ground truth's
# statements are extracted once, by whichever cell asks first).
SPEC = {
    "models": ["cand-a", "cand-b"],
    "evaluators": ["judge"],
    "temperatures": [0.2, 0.7],
    "conditions": ["divergent"],
    "per_context": 2,
    "use_cache": False,
}
# A generous bound: each worker loads torch and the encoder for its first ASS batch on a busy machine.
FINISH_S = 300


def run_on_workers(queue: str, n_workers: int, dataset: Dataset, capture: Callable[..., Any]) -> Run:
    with ExitStack() as stack:
        workers: list[subprocess.Popen[bytes]] = [stack.enter_context(running_worker(queue)) for _ in range(n_workers)]
        with tasks_not_eager(queue), capture(execute=True):
            run = run_launch(dataset=dataset, spec=SPEC)
        deadline = time.monotonic() + FINISH_S
        while Run.objects.get(pk=run.pk).status in (Run.Status.QUEUED, Run.Status.RUNNING):
            assert all(w.poll() is None for w in workers), "a worker died"
            assert time.monotonic() < deadline, f"the run on {n_workers} workers did not finish"
            time.sleep(0.3)
    run.refresh_from_db()
    return run


def cells(run: Run) -> dict[tuple[Any, ...], dict[str, Any]]:
    """Every cell by what it asks, with its answer and its scores (value and status by scorer and metric)."""
    out: dict[tuple[Any, ...], dict[str, Any]] = {}
    for g in Generation.objects.filter(run=run).select_related("model"):
        key = (g.question_id, g.model.name, g.temperature, g.condition, g.sample_index)
        scores = GenerationScore.objects.filter(generation=g)
        out[key] = {
            "status": g.status,
            "text": g.text,
            "scores": {(s.scorer, s.metric): (s.value, s.status) for s in scores},
            "n_scores": scores.count(),
        }
    return out


@pytest.fixture
def queue() -> Iterator[str]:
    yield fresh_queue("test-worker-count")


def test_a_run_on_four_workers_gives_what_it_gives_on_one(
    sample_dataset: Dataset,
    endpoint_factory: Callable[..., ModelEndpoint],
    judge_server: JudgeServer,
    queue: str,
    django_capture_on_commit_callbacks: Callable[..., Any],
) -> None:
    for name in ("cand-a", "cand-b", "judge"):  # each its own model: the two candidates answer in their own words
        endpoint_factory(name, model_id=name, timeout_s=30.0, max_concurrency=8)
    # Four first: its cells race for the statements of the ground truths they share. Statement sets are kept per
    # text and evaluator across runs (the cache switch is about responses), so the second run reuses them.
    four = run_on_workers(queue, 4, sample_dataset, django_capture_on_commit_callbacks)
    asked_by_four = Counter(judge_server.prompts())
    one = run_on_workers(queue, 1, sample_dataset, django_capture_on_commit_callbacks)
    asked_by_one = Counter(judge_server.prompts()) - asked_by_four

    assert one.status == four.status == Run.Status.DONE
    assert one.progress_done == one.progress_total == four.progress_done == four.progress_total
    statements = Counter({p: n for p, n in asked_by_four.items() if p[0] == "statements"})
    assert set(statements.values()) == {1}, "four workers extracted some text's statements more than once"
    assert asked_by_four - statements == asked_by_one  # every other call made again, as often (cache off)
    by_one, by_four = cells(one), cells(four)
    assert len(by_one) == 6 * 2 * 2
    assert by_four == by_one
    assert results_intervals(four) == results_intervals(one)
