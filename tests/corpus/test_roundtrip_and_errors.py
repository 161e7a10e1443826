"""The dkd format round-trips, and bad input is refused with one clear line and leaves nothing behind."""

import copy
import json
from pathlib import Path
from typing import Any

import pytest
from django.core.management import CommandError, call_command
from django.db import IntegrityError
from django.test import override_settings

from evalplatform.corpus.models import Alteration, Context, Dataset, Question, TextPair
from evalplatform.corpus.payload import ContextData, DatasetPayload, QuestionData
from evalplatform.corpus.services import dataset_import
from tests.conftest import SAMPLE_DKD

pytestmark = pytest.mark.django_db


def _sample() -> dict[str, Any]:
    return json.loads(SAMPLE_DKD.read_text())


def _write(tmp_path: Path, document: Any, name: str = "in.json") -> Path:
    path = tmp_path / name
    path.write_text(document if isinstance(document, str) else json.dumps(document, ensure_ascii=False))
    return path


def _nothing_written() -> bool:
    return not any(m.objects.exists() for m in (Dataset, Context, Alteration, Question, TextPair))


def test_dkd_sample_exports_back_unchanged(tmp_path: Path) -> None:
    call_command("import_dataset", str(SAMPLE_DKD), format="dkd")
    out = tmp_path / "out.json"
    call_command("export_dataset", "dkd-sample", format="dkd", output=str(out))
    assert json.loads(out.read_text()) == _sample()


def test_dkd_export_reimports_to_the_same_rows(tmp_path: Path) -> None:
    call_command("import_dataset", str(SAMPLE_DKD), format="dkd", name="first")
    out = tmp_path / "out.json"
    call_command("export_dataset", "first", format="dkd", output=str(out))
    call_command("import_dataset", str(out), format="dkd", name="second")

    def rows(name: str) -> list[tuple[object, ...]]:
        return [
            (
                q.context.key,
                q.context.topic,
                q.context.text,
                q.context.source_text,
                q.key,
                q.text,
                q.ground_truth,
                q.original_answer,
                tuple((a.field, a.original, a.divergent) for a in q.context.alterations.all()),
            )
            for q in Question.objects.filter(dataset__name=name).order_by("context__position", "position")
        ]

    assert rows("first") == rows("second")
    assert len(rows("first")) == 16


def test_qa_jsonl_export_reimports_to_the_same_questions(tmp_path: Path) -> None:
    call_command("import_dataset", str(SAMPLE_DKD), format="dkd", name="first")
    out = tmp_path / "out.jsonl"
    call_command("export_dataset", "first", format="qa-jsonl", output=str(out))
    call_command("import_dataset", str(out), format="qa-jsonl", name="second")
    first = Dataset.objects.get(name="first")
    second = Dataset.objects.get(name="second")
    assert second.contexts.count() == first.contexts.count() == 3
    assert list(second.questions.values_list("key", "ground_truth", "original_answer")) == list(
        first.questions.values_list("key", "ground_truth", "original_answer")
    )
    assert Alteration.objects.filter(context__dataset=second).count() == 21


def test_pairs_export_reimports_with_labels_scores_and_extra_fields(tmp_path: Path) -> None:
    src = tmp_path / "pairs.jsonl"
    src.write_text(
        '{"id": "a", "text_a": "x", "text_b": "y", "label": 1, "score": 4.5, "genre": "news"}\n'
        '{"id": "b", "text_a": "z", "text_b": "w", "label": 0}\n'
    )
    call_command("import_dataset", str(src), format="pairs-jsonl", name="pairs")
    out = tmp_path / "out.jsonl"
    call_command("export_dataset", "pairs", format="pairs-jsonl", output=str(out))
    assert out.read_text() == src.read_text()


def test_reimport_under_an_existing_name_is_refused_without_replace() -> None:
    call_command("import_dataset", str(SAMPLE_DKD), format="dkd")
    with pytest.raises(CommandError, match="exists already; pass --replace"):
        call_command("import_dataset", str(SAMPLE_DKD), format="dkd")
    call_command("import_dataset", str(SAMPLE_DKD), format="dkd", replace=True)
    assert Dataset.objects.count() == 1
    assert Question.objects.count() == 16


def _mutate(change: Any) -> dict[str, Any]:
    document = copy.deepcopy(_sample())
    change(document)
    return document


BAD_DOCUMENTS = {
    "missing_question_text": (
        lambda d: d["contexts"][1]["questions"][2].pop("question"),
        "record contexts[1] (id=Fahrenheit_451).questions[2] (id=Fahrenheit_451-03): field 'question': is required",
    ),
    "repeated_question_id": (
        lambda d: d["contexts"][2]["questions"][0].update(id="Agatha_Christie-01"),
        "field 'id': question id 'Agatha_Christie-01' repeats the one at contexts[0] (id=Agatha_Christie).questions[0]",
    ),
    "repeated_context_id": (
        lambda d: d["contexts"][2].update(id="Fahrenheit_451"),
        "field 'id': context id 'Fahrenheit_451' repeats the one at contexts[1]",
    ),
    "ground_truth_wrong_type": (
        lambda d: d["contexts"][0]["questions"][1].update(ground_truth=55),
        "field 'ground_truth': must be a string, got int",
    ),
    "alterations_not_a_list": (
        lambda d: d["contexts"][0].update(alterations="date"),
        "record contexts[0] (id=Agatha_Christie): field 'alterations': must be a list, got str",
    ),
    "alteration_missing_field": (
        lambda d: d["contexts"][2]["alterations"][3].pop("field"),
        "record contexts[2] (id=Mars_planet).alterations[3]: field 'field': is required",
    ),
    "empty_divergent_context": (
        lambda d: d["contexts"][0].update(divergent_context="  "),
        "field 'divergent_context': must not be empty",
    ),
    "key_too_long": (
        lambda d: d["contexts"][0].update(id="x" * 201),
        "field 'id': is 201 characters, longer than 200",
    ),
}


@pytest.mark.parametrize("case", sorted(BAD_DOCUMENTS))
def test_malformed_dkd_is_refused_with_one_line_and_writes_nothing(tmp_path: Path, case: str) -> None:
    change, expected = BAD_DOCUMENTS[case]
    path = _write(tmp_path, _mutate(change))
    with pytest.raises(CommandError) as caught:
        call_command("import_dataset", str(path), format="dkd")
    message = str(caught.value)
    assert "\n" not in message
    assert message.startswith(str(path))
    assert expected in message
    assert _nothing_written()


def test_file_that_is_not_json_is_refused(tmp_path: Path) -> None:
    path = _write(tmp_path, "name: not json\n")
    with pytest.raises(CommandError, match=r"in\.json: not valid JSON \(line 1, column 1"):
        call_command("import_dataset", str(path), format="dkd")
    assert _nothing_written()


def test_truncated_file_is_refused_with_its_position(tmp_path: Path) -> None:
    text = SAMPLE_DKD.read_text()
    path = _write(tmp_path, text[: len(text) // 2])
    with pytest.raises(CommandError, match="not valid JSON"):
        call_command("import_dataset", str(path), format="dkd")
    assert _nothing_written()


def test_json_object_repeating_a_key_is_refused(tmp_path: Path) -> None:
    text = SAMPLE_DKD.read_text().replace('"topic": "Mars planet",', '"topic": "Mars planet", "topic": "Mars",')
    path = _write(tmp_path, text)
    with pytest.raises(CommandError, match="key 'topic' appears twice in one object"):
        call_command("import_dataset", str(path), format="dkd")
    assert _nothing_written()


@override_settings(MAX_IMPORT_BYTES=1000)
def test_file_over_the_size_limit_is_refused(tmp_path: Path) -> None:
    with pytest.raises(CommandError, match="larger than the limit of 1000 bytes"):
        call_command("import_dataset", str(SAMPLE_DKD), format="dkd")
    assert _nothing_written()


def test_bad_line_in_jsonl_names_its_line_and_leaves_nothing(tmp_path: Path) -> None:
    path = tmp_path / "pairs.jsonl"
    path.write_text(
        '{"id": "a", "text_a": "x", "text_b": "y", "label": 1}\n{"id": "b", "text_a": "x", "text_b": "y", "label": 2}\n'
    )
    with pytest.raises(CommandError, match=r"record line 2 \(id=b\): field 'label': must be 0 or 1, got 2"):
        call_command("import_dataset", str(path), format="pairs-jsonl", name="pairs")
    assert _nothing_written()


def test_failure_late_in_the_write_rolls_back_everything(tmp_path: Path) -> None:
    """The database's own constraint (question keys unique in a dataset), hit after contexts were written,
    rolls the whole import back: the parsers check this first, so the payload is built by hand here."""
    payload = DatasetPayload(
        kind="dkd",
        contexts=[
            ContextData(key="c1", text="t", questions=[QuestionData(key="q", text="?", ground_truth="a")]),
            ContextData(key="c2", text="t", questions=[QuestionData(key="q", text="?", ground_truth="a")]),
        ],
    )
    with pytest.raises(IntegrityError):
        dataset_import(payload=payload, name="dup", import_format="dkd")
    assert _nothing_written()


def test_dkd_dir_question_naming_an_unknown_context_is_refused(tmp_path: Path) -> None:
    (tmp_path / "dkd_contexts.jsonl").write_text('{"id": "A", "topic": "A", "context": "text"}\n')
    (tmp_path / "dkd_questions.jsonl").write_text('{"id": "B-01", "context_id": "B", "question": "?", "answer": "x"}\n')
    with pytest.raises(CommandError, match=r"names context 'B', which dkd_contexts\.jsonl does not hold"):
        call_command("import_dataset", str(tmp_path), format="dkd-dir", name="d")
    assert _nothing_written()
