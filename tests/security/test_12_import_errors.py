"""Finding 12: some import errors gave a traceback instead of the promised one line: a name over 120 characters,
a long source or licence, NUL characters, NaN in extra fields, deep nesting. Nothing was written, but the message
must be the one line naming the file (and the record and field where there is one)."""

import json
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from evalplatform.corpus.models import Context, Dataset, Project, Question, TextPair

pytestmark = pytest.mark.django_db

CONTEXT = {
    "id": "c1",
    "divergent_context": "It opened in 1901.",
    "questions": [{"id": "q1", "question": "When?", "ground_truth": "1901"}],
}


def _dkd(**top: object) -> dict[str, object]:
    return {"name": "ok-name", "contexts": [CONTEXT]} | top


def _refused(tmp_path: Path, text: str, fmt: str, name: str = "in.json", **options: object) -> str:
    path = tmp_path / name
    path.write_text(text)
    with pytest.raises(CommandError) as refused:
        call_command("import_dataset", str(path), format=fmt, **options)
    message = str(refused.value)
    assert "\n" not in message and message.startswith(str(path)), message
    assert not any(m.objects.exists() for m in (Dataset, Context, Question, TextPair, Project))
    return message


def test_a_name_over_120_characters(tmp_path: Path) -> None:
    message = _refused(tmp_path, json.dumps(_dkd(name="n" * 121)), "dkd")
    assert "dataset name is 121 characters, longer than 120" in message


@pytest.mark.parametrize(("field", "limit"), [("source", 500), ("licence", 300)])
def test_a_long_source_or_licence(tmp_path: Path, field: str, limit: int) -> None:
    message = _refused(tmp_path, json.dumps(_dkd(**{field: "s" * (limit + 1)})), "dkd")
    assert f"field '{field}': is {limit + 1} characters, longer than {limit}" in message


def test_a_nul_character_in_a_text(tmp_path: Path) -> None:
    document = _dkd()
    document["contexts"] = [CONTEXT | {"divergent_context": "before\u0000after"}]
    message = _refused(tmp_path, json.dumps(document), "dkd")
    assert "NUL character at contexts[0].divergent_context" in message


def test_a_nul_character_in_an_extra_field_of_a_jsonl_line(tmp_path: Path) -> None:
    line = {"id": "q1", "question": "q", "context": "c", "answer": "a", "note": "x\u0000y"}
    message = _refused(tmp_path, json.dumps(line) + "\n", "qa-jsonl", name="qa.jsonl")
    assert "record line 1" in message and "NUL character at note" in message


@pytest.mark.parametrize("number", ["NaN", "Infinity", "-Infinity", "1e400"])
def test_nan_and_infinities_in_extra_fields(tmp_path: Path, number: str) -> None:
    text = '{"id": "p1", "text_a": "a", "text_b": "b", "weight": ' + number + "}\n"
    message = _refused(tmp_path, text, "pairs-jsonl", name="pairs.jsonl")
    assert "record line 1" in message and ("not a number" in message or "out of range" in message)


def test_nan_as_a_pair_score(tmp_path: Path) -> None:
    text = '{"id": "p1", "text_a": "a", "text_b": "b", "score": NaN}\n'
    assert "not a number" in _refused(tmp_path, text, "pairs-jsonl", name="pairs.jsonl")


@pytest.mark.parametrize("depth", [65, 100_000])
def test_deep_nesting(tmp_path: Path, depth: int) -> None:
    nested = "[" * depth + "]" * depth
    text = '{"id": "q1", "question": "q", "context": "c", "answer": "a", "deep": ' + nested + "}\n"
    message = _refused(tmp_path, text, "qa-jsonl", name="qa.jsonl")
    assert "nested deeper than 64 levels" in message


def test_moderate_nesting_in_extra_fields_still_imports(tmp_path: Path) -> None:
    nested = "[" * 20 + "1" + "]" * 20
    path = tmp_path / "qa.jsonl"
    path.write_text('{"id": "q1", "question": "q", "context": "c", "answer": "a", "deep": ' + nested + "}\n")
    call_command("import_dataset", str(path), format="qa-jsonl")
    assert Question.objects.get().metadata["deep"] == json.loads(nested)
