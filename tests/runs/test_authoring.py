"""Fabricating divergent contexts and generating draft questions with a generator model."""

from collections.abc import Callable

import pytest

from evalplatform.corpus.models import Dataset, Question
from evalplatform.runs.models import ModelEndpoint
from scoring.cdke.fabricate import contexts_fabricate
from scoring.cdke.questions import questions_generate
from tests.runs.judge_server import JudgeServer

pytestmark = pytest.mark.django_db


def test_fabrication_keeps_the_real_text_and_records_the_alterations(
    sample_dataset: Dataset, endpoint_factory: Callable[..., ModelEndpoint], judge_server: JudgeServer
) -> None:
    generator = endpoint_factory("gen")
    target, report = contexts_fabricate(source=sample_dataset, target_name="fabricated", generator=generator, limit=2)
    assert report.created == 2 and report.unparseable == []
    context = target.contexts.get(key="Agatha_Christie")
    assert context.source_text == sample_dataset.contexts.get(key="Agatha_Christie").source_text
    alteration = context.alterations.get()
    assert (alteration.original, alteration.divergent) == ("Dame", "Dameson")
    assert context.text.startswith("Dameson Agatha")
    again, second = contexts_fabricate(source=sample_dataset, target_name="fabricated", generator=generator)
    assert second.created == 1 and again.contexts.count() == 3  # already fabricated contexts are skipped


def test_unparseable_generator_output_creates_nothing_and_is_reported(
    sample_dataset: Dataset, endpoint_factory: Callable[..., ModelEndpoint], judge_server: JudgeServer
) -> None:
    judge_server.inject("fabricate", "garbage", "garbage")
    _, report = contexts_fabricate(
        source=sample_dataset, target_name="fabricated", generator=endpoint_factory("gen"), limit=1
    )
    assert report.created == 0
    assert report.unparseable == [("Agatha_Christie", "this is not what was asked for")]


def test_generated_questions_are_drafts_for_review(
    sample_dataset: Dataset, endpoint_factory: Callable[..., ModelEndpoint], judge_server: JudgeServer
) -> None:
    generator = endpoint_factory("gen")
    target, _ = contexts_fabricate(source=sample_dataset, target_name="fabricated", generator=generator)
    report = questions_generate(dataset=target, generator=generator, per_context=2)
    assert report.created == 6
    assert set(Question.objects.filter(dataset=target).values_list("status", flat=True)) == {"draft"}
    assert list(target.questions.filter(context__key="Mars_planet").values_list("key", "ground_truth")) == [
        ("Mars_planet-g01", "Answer 1."),
        ("Mars_planet-g02", "Answer 2."),
    ]
    prompt = next(p for kind, p in judge_server.prompts() if kind == "questions")
    assert "- Dame -> Dameson" in prompt
