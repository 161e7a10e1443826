"""The kg task (idempotent, finishes the run, TAU after the last graph) and bench_similarity's output."""

import json
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from evalplatform.corpus.services import dataset_import_file
from evalplatform.runs.models import Run
from scoring.kg_spec import KGSpec
from scoring.models import BenchmarkResult, GraphScore, PairScore, TauDiagnosis
from scoring.services.kg_runs import kg_run_of_imported_answers
from scoring.tasks import generation_graph_task
from tests.kg_pipeline.helpers import qa_record, write_jsonl

pytestmark = pytest.mark.django_db

SAME = [["Aspirin", "reduces", "fever"]]
OTHER = [["Willow_bark", "contains", "salicin"]]


def test_graph_task_is_idempotent_and_finishes_the_run_with_tau(tmp_path: Path) -> None:
    records = [
        qa_record("1", answer=SAME, gold=SAME, context=SAME),
        qa_record("2", answer=SAME, gold=OTHER, context=SAME),
    ]
    dataset = dataset_import_file(path=write_jsonl(tmp_path / "t.jsonl", records), import_format="qa-jsonl")
    kg = KGSpec.from_dict({"extractor": "imported", "variants": ["s3kg", "s3kg_directed"]})
    run = kg_run_of_imported_answers(dataset=dataset, model="toy-7b", kg=kg)
    assert kg_run_of_imported_answers(dataset=dataset, model="toy-7b", kg=kg).pk == run.pk
    ids = list(run.generations.order_by("pk").values_list("pk", flat=True))
    generation_graph_task.delay(ids[0])
    generation_graph_task.delay(ids[0])  # a redelivered task writes nothing twice
    assert GraphScore.objects.filter(generation__run=run).count() == 2
    run.refresh_from_db()
    assert run.status == Run.Status.RUNNING and not TauDiagnosis.objects.exists()
    generation_graph_task.delay(ids[1])
    run.refresh_from_db()
    assert run.status == Run.Status.DONE and run.progress_done == run.progress_total == 4
    # TAU per variant on the one lowest item: item 2, whose gold graph shares nothing with its answer
    diagnoses = TauDiagnosis.objects.select_related("graph_score__generation__question")
    assert {(d.graph_score.variant, d.graph_score.generation.question.key) for d in diagnoses} == {
        ("s3kg", "2"),
        ("s3kg_directed", "2"),
    }
    assert all(d.counts["extra"] == 1 and d.counts["missing"] == 1 for d in diagnoses)


def test_bench_similarity_given_graphs_json_and_rows(tmp_path: Path) -> None:
    pairs = [
        {
            "id": "a",
            "text_a": "A beat B.",
            "text_b": "A beat B.",
            "kg_a": [["A", "beat", "B"]],
            "kg_b": [["A", "beat", "B"]],
            "label": 1,
        },
        {
            "id": "b",
            "text_a": "C met D.",
            "text_b": "C met D today.",
            "kg_a": [["C", "met", "D"]],
            "kg_b": "[['C', 'met', 'D']]",
            "label": 1,
        },
        {
            "id": "c",
            "text_a": "E is red.",
            "text_b": "F sings.",
            "kg_a": [["E", "is", "red"]],
            "kg_b": [["F", "sing", "song"]],
            "label": 0,
        },
        {"id": "d", "text_a": "G sat.", "text_b": "H ran far.", "kg_a": [], "kg_b": [["H", "ran", "far"]], "label": 0},
    ]
    path = write_jsonl(tmp_path / "toy_pairs.jsonl", pairs)
    out = tmp_path / "bench.json"
    call_command("bench_similarity", pairs=path, extractor="given", json=out)
    result = json.loads(out.read_text())
    assert result["n"] == 4
    methods = result["methods"]
    for name in (
        "s3kg",
        "s3kg_directed",
        "s3kg_symmetric",
        "s3kg_reference",
        "rouge1",
        "rouge2",
        "rougeL",
        "bleu",
        "bertscore",
        "minilm",
    ):
        assert set(methods[name]) == {"f1", "auroc", "threshold", "precision", "recall"}
    assert "sentence_t5" not in methods  # reported unavailable, never faked
    # identical graphs score 1, the empty graph 0, so S3KG separates the two paraphrases perfectly
    assert methods["s3kg"]["auroc"] == 1.0 and methods["s3kg"]["f1"] == 1.0
    run = Run.objects.get(kind=Run.Kind.SIMILARITY_BENCHMARK)
    assert BenchmarkResult.objects.get(run=run, method="sentence_t5").status == "unavailable"
    assert PairScore.objects.get(run=run, method="s3kg", pair__key="a").value == pytest.approx(1.0)
    assert PairScore.objects.get(run=run, method="s3kg", pair__key="d").value == 0.0
    assert PairScore.objects.filter(run=run, method="minilm").count() == 4


def test_bench_similarity_given_keys_repeated_ids_by_line_when_asked(tmp_path: Path) -> None:
    # The authors' MRPC file carries pair 301 twice, with different graphs: two rows, both benchmarked.
    row = {"id": "301", "text_a": "A beat B.", "text_b": "B lost to A.", "label": 1}
    pairs = [
        {**row, "kg_a": [["A", "beat", "B"]], "kg_b": [["A", "beat", "B"]]},
        {"id": "9", "text_a": "E is red.", "text_b": "F sings.", "label": 0, "kg_a": [["E", "is", "red"]], "kg_b": []},
        {**row, "kg_a": [["he", "wrote", "text"]], "kg_b": [["A", "beat", "B"]]},
    ]
    path = write_jsonl(tmp_path / "repeated.jsonl", pairs)
    with pytest.raises(CommandError, match=r"pair id '301' repeats the one at line 1 .*--key-by-line"):
        call_command("bench_similarity", pairs=path, extractor="given")
    out = tmp_path / "bench.json"
    call_command("bench_similarity", pairs=path, extractor="given", key_by_line=True, json=out)
    assert json.loads(out.read_text())["n"] == 3
    run = Run.objects.get(kind=Run.Kind.SIMILARITY_BENCHMARK)
    scores = dict(PairScore.objects.filter(run=run, method="s3kg").values_list("pair__key", "value"))
    assert scores["line-1"] == pytest.approx(1.0) and scores["line-2"] == 0.0
    assert scores["line-3"] < 1.0
