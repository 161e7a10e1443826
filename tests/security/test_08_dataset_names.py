"""Finding 8: a dataset name that is not a URL slug (the default from a file stem like ``conflict.v1``) imported,
then /datasets/ and its run pages answered 500 to everyone who could see it. Names are now validated at import,
from --name, from the file's own name and from the file stem alike, and for fabricated datasets too."""

import json
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from evalplatform.corpus.models import Dataset, Project
from evalplatform.corpus.records import DatasetImportError
from scoring.cdke.fabricate import contexts_fabricate
from tests.web.conftest import World, client_for

pytestmark = pytest.mark.django_db

QA_LINE = {"id": "q1", "question": "When?", "context": "It opened in 1901.", "answer": "In 1901."}


def _qa_file(tmp_path: Path, stem: str) -> Path:
    path = tmp_path / f"{stem}.jsonl"
    path.write_text(json.dumps(QA_LINE) + "\n")
    return path


def _import_refused(*args: str, **options: object) -> str:
    with pytest.raises(CommandError) as refused:
        call_command("import_dataset", *args, **options)
    message = str(refused.value)
    assert "\n" not in message
    return message


def test_a_file_stem_that_is_not_a_slug_is_refused_with_a_suggestion(tmp_path: Path) -> None:
    path = _qa_file(tmp_path, "conflict.v1")
    message = _import_refused(str(path), format="qa-jsonl")
    assert message.startswith(str(path))
    assert "dataset name 'conflict.v1' is not a slug" in message and "'conflict-v1'" in message
    assert not Dataset.objects.exists()


@pytest.mark.parametrize("name", ["two words", "naïve", "a/b", "x" * 121, "dots.in.name"])
def test_a_given_name_that_is_not_a_slug_is_refused(tmp_path: Path, name: str) -> None:
    _import_refused(str(_qa_file(tmp_path, "fine")), format="qa-jsonl", name=name)
    assert not Dataset.objects.exists()


def test_the_name_inside_a_dkd_file_is_checked_too(tmp_path: Path) -> None:
    document = {
        "name": "DKD v2.0",
        "contexts": [
            {"id": "c", "divergent_context": "t", "questions": [{"id": "q", "question": "q", "ground_truth": "a"}]}
        ],
    }
    path = tmp_path / "dkd.json"
    path.write_text(json.dumps(document))
    assert "dataset name 'DKD v2.0' is not a slug" in _import_refused(str(path), format="dkd")


def test_a_project_name_that_is_not_a_slug_is_refused_and_no_project_is_left(tmp_path: Path) -> None:
    _import_refused(str(_qa_file(tmp_path, "fine")), format="qa-jsonl", project="my project")
    assert not Project.objects.exists() and not Dataset.objects.exists()


def test_a_refused_dataset_leaves_no_new_project_behind(tmp_path: Path) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_text(json.dumps({"id": "q1"}) + "\n")  # no question
    _import_refused(str(path), format="qa-jsonl", project="new-project")
    assert not Project.objects.exists()


def test_a_slug_name_imports_and_its_pages_answer(tmp_path: Path, world: World) -> None:
    call_command("import_dataset", str(_qa_file(tmp_path, "conflict.v1")), format="qa-jsonl", name="conflict-v1")
    Dataset.objects.filter(name="conflict-v1").update(project=world.dataset.project)
    client = client_for(world, "researcher")
    assert client.get("/datasets/").status_code == 200
    assert client.get("/datasets/conflict-v1/").status_code == 200
    assert client.get("/").status_code == 200


def test_a_fabricated_dataset_needs_a_slug_name_too(world: World) -> None:
    with pytest.raises(DatasetImportError, match="is not a slug"):
        contexts_fabricate(source=world.dataset, target_name="fabricated v1", generator=world.model)
    assert not Dataset.objects.filter(name="fabricated v1").exists()
