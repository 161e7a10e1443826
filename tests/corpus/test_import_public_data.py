"""Every public file these formats cover imports with the counts its README states."""

import json
from pathlib import Path

import pytest
from django.core.management import call_command

from evalplatform.corpus.models import Alteration, Context, Dataset, Question, TextPair

pytestmark = pytest.mark.django_db


def _import(path: Path, fmt: str, name: str) -> Dataset:
    call_command("import_dataset", str(path), format=fmt, name=name)
    return Dataset.objects.get(name=name)


def test_public_dkd_folder_imports_50_contexts_and_1011_questions(shared_data: Path) -> None:
    dataset = _import(shared_data / "dkd", "dkd-dir", "dkd")
    assert dataset.kind == "dkd"
    assert dataset.contexts.count() == 50
    assert dataset.questions.count() == 1011
    per_context = sorted(c.questions.count() for c in dataset.contexts.all())
    assert per_context.count(20) == 37 and per_context.count(21) == 12 and per_context.count(19) == 1
    first = dataset.questions.get(key="Agatha_Christie-01")
    assert first.ground_truth == "Agatha Christie's birth name was Agatha Mary Patricia Bert."


def test_dkd_inline_file_groups_its_250_questions_into_50_contexts(shared_data: Path) -> None:
    dataset = _import(shared_data / "dkd" / "dkd_qa_inline_first5.jsonl", "qa-jsonl", "dkd-inline")
    assert dataset.questions.count() == 250
    assert dataset.contexts.count() == 50


def test_pubmedqa_imports_1000_items_with_long_answer_as_ground_truth(shared_data: Path) -> None:
    dataset = _import(shared_data / "pubmedqa" / "pqal_1000.jsonl", "pubmedqa", "pubmedqa")
    assert dataset.kind == "qa"
    assert dataset.contexts.count() == 1000
    assert dataset.questions.count() == 1000
    decisions = [q.metadata["answer"] for q in dataset.questions.all()]
    assert (decisions.count("yes"), decisions.count("no"), decisions.count("maybe")) == (552, 338, 110)
    first_line = json.loads((shared_data / "pubmedqa" / "pqal_1000.jsonl").read_text().split("\n")[0])
    item = dataset.questions.get(key=first_line["id"])
    assert item.ground_truth == first_line["long_answer"]
    assert item.context.text == first_line["context"]


@pytest.mark.parametrize(
    ("relative", "total", "positives"),
    [
        ("mrpc/mrpc_test_balanced_400.jsonl", 400, 200),
        ("mrpc/mrpc_test_full.jsonl", 1725, 1147),
        ("paws_wiki/paws_wiki_test_balanced_400.jsonl", 400, 200),
        ("sts12/sts12_test_balanced_400.jsonl", 400, 200),
        ("sts12/sts12_test_full.jsonl", 3108, 1498),
        ("stsb/stsb_test_balanced_400.jsonl", 400, 200),
        ("stsb/stsb_test_full.jsonl", 1379, 338),
    ],
)
def test_pair_files_import_with_their_label_counts(
    shared_data: Path, relative: str, total: int, positives: int
) -> None:
    dataset = _import(shared_data / relative, "pairs-jsonl", Path(relative).stem.replace("_", "-"))
    assert dataset.kind == "pairs"
    assert TextPair.objects.filter(dataset=dataset).count() == total
    assert TextPair.objects.filter(dataset=dataset, label=1).count() == positives


def test_sts_scores_are_kept_beside_the_binary_label(shared_data: Path) -> None:
    dataset = _import(shared_data / "stsb/stsb_test_balanced_400.jsonl", "pairs-jsonl", "stsb")
    pair = TextPair.objects.filter(dataset=dataset).first()
    assert pair is not None and pair.score is not None
    assert pair.label == (1 if pair.score >= 4.0 else 0)
    assert "genre" in pair.metadata


@pytest.mark.parametrize(
    ("relative", "questions", "with_original"),
    [
        ("conflictnq/conflictnq_test.jsonl", 226, 226),
        ("conflictqa_strategyqa/conflictqa_strategyqa_gpt4_balanced_300.jsonl", 300, 300),
    ],
)
def test_conflict_sets_import_as_qa_with_the_real_answer_as_original(
    shared_data: Path, relative: str, questions: int, with_original: int
) -> None:
    dataset = _import(shared_data / relative, "qa-jsonl", Path(relative).stem.replace("_", "-")[:60])
    assert dataset.questions.count() == questions
    assert dataset.questions.exclude(original_answer="").count() == with_original


def test_conflictnq_real_passages_become_the_source_text(shared_data: Path) -> None:
    dataset = _import(shared_data / "conflictnq/conflictnq_test.jsonl", "qa-jsonl", "conflictnq")
    assert Context.objects.filter(dataset=dataset).exclude(source_text="").count() == dataset.contexts.count()
    assert Alteration.objects.filter(context__dataset=dataset).count() == 0
    assert Question.objects.filter(dataset=dataset, status="draft").count() == 226
