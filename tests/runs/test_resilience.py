"""A run at scale: answers fed in chunks, progress counted once per unit. (What keeps a run from getting stuck or
losing work, found by the break-it pass, is in tests/security: 06, 07, 14, 15, 18.)"""

from collections.abc import Callable
from typing import Any

import pytest
from django.utils import timezone

from evalplatform.corpus.models import Dataset
from evalplatform.runs.launch import run_launch
from evalplatform.runs.models import Generation, ModelEndpoint, Run, StageProgress
from scoring.cdke.tasks import answers_to_send
from tests.runs.conftest import ONE
from tests.runs.judge_server import JudgeServer

pytestmark = pytest.mark.django_db
EndpointFactory = Callable[..., ModelEndpoint]


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
