"""Fabricating divergent contexts and generating draft questions with a generator model."""

import json
from collections.abc import Callable

import pytest

from evalplatform.corpus.models import Dataset, Question
from evalplatform.runs.models import ModelEndpoint
from scoring.cdke.fabricate import contexts_fabricate
from scoring.cdke.questions import questions_generate
from scoring.models import GeneratorRefusal
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


def test_fabrication_continues_the_latest_version_of_a_name_with_several(
    sample_dataset: Dataset, endpoint_factory: Callable[..., ModelEndpoint], judge_server: JudgeServer
) -> None:
    """A name with two versions: get_or_create by name raised MultipleObjectsReturned."""
    for version in (1, 2):
        Dataset.objects.create(name="fabricated", version=version, kind=Dataset.Kind.DKD)
    target, report = contexts_fabricate(
        source=sample_dataset, target_name="fabricated", generator=endpoint_factory("gen"), limit=1
    )
    assert target.version == 2 and report.created == 1 and target.contexts.count() == 1


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
    first_word = sample_dataset.contexts.get(key="Mars_planet").source_text.split()[0]
    assert list(target.questions.filter(context__key="Mars_planet").values_list("key", "ground_truth")) == [
        ("Mars_planet-g01", f"{first_word}son 1."),
        ("Mars_planet-g02", f"{first_word}son 2."),
    ]
    assert report.refused == report.short == 0
    prompt = next(p for kind, p in judge_server.prompts() if kind == "questions")
    assert "- Dame -> Dameson" in prompt


def test_a_fabrication_that_does_not_diverge_is_refused_never_stored(
    sample_dataset: Dataset, endpoint_factory: Callable[..., ModelEndpoint], judge_server: JudgeServer
) -> None:
    """What the local model did on the bundled sample: the real text's first sentence back unchanged, and the
    prompt's own placeholders as its one alteration."""
    real = sample_dataset.contexts.get(key="Agatha_Christie").source_text
    echo = json.dumps(
        {
            "divergent_text": real.split(". ")[0] + ".",
            "alterations": [
                {"kind": "date", "original": "<fact as in the article>", "divergent": "<fact as rewritten>"}
            ],
        }
    )
    judge_server.inject("fabricate", ("reply", echo), ("reply", echo))
    target, report = contexts_fabricate(
        source=sample_dataset, target_name="fabricated", generator=endpoint_factory("gen"), limit=1
    )
    assert report.created == 0 and target.contexts.count() == 0
    (refusal,) = GeneratorRefusal.objects.filter(dataset=target)
    assert refusal.step == "fabricate" and refusal.context_key == "Agatha_Christie" and refusal.raw_output == echo
    assert "a piece of the real text" in refusal.problems[0] and "placeholder" in refusal.problems[0]
    assert judge_server.count()["fabricate"] == 2  # the call and its one repair


def test_questions_that_are_not_questions_are_refused_and_counted(
    sample_dataset: Dataset, endpoint_factory: Callable[..., ModelEndpoint], judge_server: JudgeServer
) -> None:
    generator = endpoint_factory("gen")
    target, _ = contexts_fabricate(source=sample_dataset, target_name="fabricated", generator=generator, limit=1)
    changed = target.contexts.get().alterations.get().divergent
    batch = json.dumps(
        {
            "questions": [
                {"question": "...", "ground_truth": "..."},  # the prompt's placeholder, as the local model wrote it
                {"question": "Who wrote the first novel?", "ground_truth": f"{changed} wrote it."},
                {"question": "When did she marry?", "ground_truth": "In 1914."},  # no divergent fact
            ]
        }
    )
    judge_server.inject("questions", ("reply", batch), ("reply", batch))
    report = questions_generate(dataset=target, generator=generator, per_context=4)
    assert (report.created, report.refused, report.short) == (1, 2, 1)  # asked 4: 1 kept, 2 refused, 1 never written
    assert list(target.questions.values_list("ground_truth", flat=True)) == [f"{changed} wrote it."]
    refusals = {r.raw_output: r.problems for r in GeneratorRefusal.objects.filter(dataset=target, step="questions")}
    assert len(refusals) == 2
    assert any("is not a question" in p for problems in refusals.values() for p in problems)
    assert any("carries none of the context's divergent facts" in p for problems in refusals.values() for p in problems)
