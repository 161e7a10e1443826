"""Finding 14: the answer page and the exports showed the question's current ground truth, not the one its
scores were computed against. Each score now keeps the ground truth it used; pages and exports show both."""

import json
from collections.abc import Callable

import pytest
from django.test import Client

from evalplatform.corpus.models import Dataset
from evalplatform.runs.models import Generation, ModelEndpoint, Run
from scoring.models import GenerationScore
from tests.runs.judge_server import JudgeServer

pytestmark = pytest.mark.django_db
EndpointFactory = Callable[..., ModelEndpoint]


def test_every_score_keeps_the_ground_truth_it_was_computed_against(
    owner_client: Client,
    launch: Callable[..., Run],
    sample_dataset: Dataset,
    endpoint_factory: EndpointFactory,
    judge_server: JudgeServer,
) -> None:
    endpoint_factory("cand")
    endpoint_factory("judge")
    run = launch(sample_dataset, models=["cand"], evaluators=["judge"], limit=1)
    generation = Generation.objects.get(run=run)
    old = generation.question.ground_truth
    generation.question.ground_truth = "A new ground truth from a later consensus."
    generation.question.save()
    assert set(GenerationScore.objects.filter(generation=generation).values_list("ground_truth", flat=True)) == {old}
    client = owner_client
    detail = client.get(f"/api/runs/{run.pk}/generations/{generation.pk}/").json()
    assert detail["ground_truth"] == "A new ground truth from a later consensus." and detail[
        "earlier_ground_truths"
    ] == [old]
    export = client.get(f"/api/runs/{run.pk}/export/scores.jsonl")
    rows = [json.loads(line) for line in b"".join(export.streaming_content).decode().splitlines()]  # type: ignore[attr-defined]
    assert {row["ground_truth"] for row in rows} == {old}
