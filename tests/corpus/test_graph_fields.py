"""Graphs imported with the data: JSON lists and Python-literal strings; malformed graphs name the record."""

import json
from pathlib import Path

import pytest
from django.core.management import call_command

from evalplatform.corpus.importers import parse_file
from evalplatform.corpus.models import Question, TextPair
from evalplatform.corpus.records import DatasetImportError

LIMIT = 10_000_000


def _pairs(tmp_path: Path, **fields: object) -> Path:
    record = {"id": "p1", "text_a": "A beat B.", "text_b": "B lost to A.", "label": 1, **fields}
    path = tmp_path / "pairs.jsonl"
    path.write_text(json.dumps(record) + "\n")
    return path


def test_pairs_accept_json_lists_and_python_literal_strings(tmp_path: Path) -> None:
    payload = parse_file(
        _pairs(tmp_path, kg_a=[["A", "beat", "B"]], kg_b="[['B', 'lost_to', 'A'], (\"B\", 'is', 'team')]"),
        "pairs-jsonl",
        limit=LIMIT,
    )
    meta = payload.pairs[0].metadata
    assert meta["kg_a"] == [["A", "beat", "B"]]
    assert meta["kg_b"] == [["B", "lost_to", "A"], ["B", "is", "team"]]


@pytest.mark.parametrize(
    ("value", "field", "message"),
    [
        ({"a": 1}, "kg_a", "must be a list"),
        ("not a literal (", "kg_a", "not a list literal"),
        ("__import__('os')", "kg_a", "not a list literal"),
        ([["A", "beat"]], "kg_a[0]", "has 2 labels, expected 3"),
        ([["A", "beat", 3]], "kg_a[0]", "has a int label"),
        (["A beat B"], "kg_a[0]", "must be a [head, relation, tail] list"),
    ],
)
def test_malformed_graph_is_an_import_error_naming_the_record(
    tmp_path: Path, value: object, field: str, message: str
) -> None:
    with pytest.raises(DatasetImportError) as info:
        parse_file(_pairs(tmp_path, kg_a=value), "pairs-jsonl", limit=LIMIT)
    assert info.value.record == "line 1 (id=p1)"
    assert info.value.field == field
    assert message in info.value.detail


def test_qa_graphs_need_the_answer_and_model_they_belong_to(tmp_path: Path) -> None:
    record = {"id": "q1", "question": "Q?", "context": "C.", "gold_answer": "G.", "kg_llm": [["a", "b", "c"]]}
    path = tmp_path / "qa.jsonl"
    for missing in ("llm_answer", "model"):
        path.write_text(json.dumps(record) + "\n")
        with pytest.raises(DatasetImportError) as info:
            parse_file(path, "qa-jsonl", limit=LIMIT)
        assert (info.value.record, info.value.field) == ("line 1 (id=q1)", missing)
        record[missing] = "given"


@pytest.mark.django_db
def test_paper_graph_file_imports_with_its_graphs(shared_data: Path, tmp_path: Path) -> None:
    source = shared_data / "s3kg_paper_kgs" / "pubmedqa_gemma-7b-it_small.jsonl"
    small = tmp_path / "pubmed10.jsonl"
    small.write_text("\n".join(source.read_text().splitlines()[:10]) + "\n")
    call_command("import_dataset", str(small), format="qa-jsonl", name="pubmed10")
    first = json.loads(source.read_text().splitlines()[0])
    question = Question.objects.get(dataset__name="pubmed10", key=first["id"])
    assert question.metadata["kg_gold"] == first["kg_gold"]
    assert question.metadata["model"] == "gemma-7b-it"
    assert question.metadata["llm_answer"] == first["llm_answer"]
    assert Question.objects.filter(dataset__name="pubmed10").count() == 10
    assert not TextPair.objects.exists()


def _repeated_ids(tmp_path: Path) -> Path:
    """Two distinct rows under one id, the way the S3KG authors' MRPC file carries its pair 301."""
    rows = [
        {"id": "301", "text_a": "A beat B.", "text_b": "B lost to A.", "label": 1, "kg_a": []},
        {"id": "7", "text_a": "C met D.", "text_b": "D saw C.", "label": 0},
        {"id": "301", "text_a": "A beat B.", "text_b": "B lost to A.", "label": 1, "kg_a": [["a", "beat", "b"]]},
    ]
    path = tmp_path / "pairs.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def test_repeated_ids_are_refused_with_a_pointer_to_keying_by_line(tmp_path: Path) -> None:
    with pytest.raises(DatasetImportError) as info:
        parse_file(_repeated_ids(tmp_path), "pairs-jsonl", limit=LIMIT)
    assert info.value.record == "line 3 (id=301)"
    assert "repeats the one at line 1 (id=301)" in info.value.detail
    assert "--key-by-line" in info.value.detail


@pytest.mark.django_db
def test_key_by_line_keeps_every_row_and_the_files_own_id(tmp_path: Path) -> None:
    call_command("import_dataset", str(_repeated_ids(tmp_path)), format="pairs-jsonl", name="rep", key_by_line=True)
    pairs = {p.key: p for p in TextPair.objects.filter(dataset__name="rep")}
    assert sorted(pairs) == ["line-1", "line-2", "line-3"]
    assert [pairs[k].metadata["source_id"] for k in ("line-1", "line-2", "line-3")] == ["301", "7", "301"]
    assert pairs["line-1"].metadata["kg_a"] == [] and pairs["line-3"].metadata["kg_a"] == [["a", "beat", "b"]]


def test_key_by_line_applies_to_the_line_formats_only(tmp_path: Path) -> None:
    path = tmp_path / "d.json"
    path.write_text("{}")
    with pytest.raises(DatasetImportError, match="keyed by line in qa-jsonl, pairs-jsonl only, not in dkd"):
        parse_file(path, "dkd", limit=LIMIT, key_by_line=True)


def test_key_by_line_will_not_overwrite_a_source_id_field(tmp_path: Path) -> None:
    path = tmp_path / "qa.jsonl"
    record = {"id": "q1", "source_id": "x", "question": "Q?", "context": "C.", "gold_answer": "G."}
    path.write_text(json.dumps(record) + "\n")
    with pytest.raises(DatasetImportError) as info:
        parse_file(path, "qa-jsonl", limit=LIMIT, key_by_line=True)
    assert (info.value.record, info.value.field) == ("line 1", "source_id")
