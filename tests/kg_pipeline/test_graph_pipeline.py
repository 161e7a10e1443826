"""Stored graphs, graph scores per variant, skipped and failed items, TAU and the kg task, on hand-checkable data."""

from pathlib import Path
from typing import Any

import pytest
from django.core.management import call_command

from evalplatform.corpus.models import Context, Dataset, Question
from evalplatform.corpus.services import dataset_import_file
from evalplatform.runs.models import Generation, ModelEndpoint, Run
from scoring.kg_results import kg_results
from scoring.kg_spec import KGSpec
from scoring.models import GraphScore, KnowledgeGraph, ScoreStatus, TauDiagnosis
from scoring.services.graph_scores import graph_scores_compute
from scoring.services.graphs import (
    graph_get_or_extract,
    graph_import,
    graph_raw_triplets,
    graph_triplets,
    shared_extractor,
)
from scoring.services.kg_runs import kg_run_of_imported_answers, run_graph_pass, run_tau
from tests.kg_pipeline.helpers import NamedOneHot, qa_record, write_jsonl

pytestmark = pytest.mark.django_db

SAME = [["Aspirin", "reduces", "fever"]]
OTHER = [["Willow_bark", "contains", "salicin"]]


def _toy(tmp_path: Path) -> Dataset:
    records = [
        qa_record("1", answer=SAME, gold=SAME, context=SAME),  # GoldSim 1, CtxSim 1
        qa_record("2", answer=SAME, gold=SAME, context=OTHER),  # GoldSim 1, CtxSim 0 (one-hot: nothing shared)
        qa_record("3", answer=[], gold=SAME, context=SAME),  # empty answer graph: skipped
    ]
    return dataset_import_file(path=write_jsonl(tmp_path / "toy.jsonl", records), import_format="qa-jsonl")


def _score(dataset: Dataset, kg: KGSpec, encoder: Any) -> Run:
    run = kg_run_of_imported_answers(dataset=dataset, model="toy-7b", kg=kg)
    graph_scores_compute(generations=list(run.generations.all()), kg=kg, encoder=encoder)
    return run


def test_imported_graph_keeps_raw_labels_and_is_stored_once() -> None:
    graph = graph_import(text="t", triplets=[["Conventional_therapies", "Were_Used", "Patients"]])
    again = graph_import(text="t", triplets=[["Conventional_therapies", "Were_Used", "Patients"]])
    other = graph_import(text="t", triplets=[["x", "y", "z"]])
    assert graph.pk == again.pk != other.pk
    assert graph.extractor == "imported"
    assert [tuple(t) for t in graph_triplets(graph)] == [("conventional therapy", "be use", "patient")]
    assert [tuple(t) for t in graph_raw_triplets(graph)] == [("Conventional_therapies", "Were_Used", "Patients")]


def test_a_text_is_extracted_once_per_extractor_version() -> None:
    real = shared_extractor("dependency")

    class Counting:
        name, version = real.name, real.version
        calls = 0

        def extract(self, text: str) -> Any:
            Counting.calls += 1
            return real.extract(text)

    first = graph_get_or_extract(text="Marie Curie discovered polonium.", extractor=Counting())
    second = graph_get_or_extract(text="Marie Curie discovered polonium.", extractor=Counting())
    assert first.pk == second.pk and Counting.calls == 1
    assert [tuple(t) for t in graph_triplets(first)] == [("marie curie", "discover", "polonium")]


def test_goldsim_ctxsim_cus_by_hand_with_skipped_item_counted(tmp_path: Path) -> None:
    kg = KGSpec.from_dict({"extractor": "imported", "variants": ["s3kg", "s3kg_reference"]})
    encoder = NamedOneHot()
    run = _score(_toy(tmp_path), kg, encoder)
    scores = {(s.generation.question.key, s.variant): s for s in GraphScore.objects.filter(generation__run=run)}
    assert len(scores) == 6  # every variant of every generation, the skipped one included
    for variant in ("s3kg", "s3kg_reference"):
        assert (scores["1", variant].goldsim, scores["1", variant].ctxsim, scores["1", variant].cus) == (1.0, 1.0, 1.0)
        assert (scores["2", variant].goldsim, scores["2", variant].ctxsim, scores["2", variant].cus) == (1.0, 0.0, 0.0)
        skipped = scores["3", variant]
        assert (skipped.status, skipped.skipped_reason, skipped.cus) == (
            ScoreStatus.SKIPPED,
            "empty answer graph",
            None,
        )
    rows = {r["variant"]: r for r in kg_results(run, kg=kg, encoder_name=encoder.name)}
    assert (rows["s3kg"]["n"], rows["s3kg"]["n_skipped"]) == (2, 1)
    # means over the two scored items: GoldSim (1 + 1) / 2, CtxSim (1 + 0) / 2, CUS (1 + 0) / 2
    assert (rows["s3kg"]["goldsim"]["mean"], rows["s3kg"]["ctxsim"]["mean"], rows["s3kg"]["cus"]["mean"]) == (
        1.0,
        0.5,
        0.5,
    )
    # a second pass writes nothing new
    assert graph_scores_compute(generations=list(run.generations.all()), kg=kg, encoder=encoder) == 0  # type: ignore[arg-type]
    assert GraphScore.objects.filter(generation__run=run).count() == 6


def test_tau_diagnoses_the_lowest_goldsim_item_once(tmp_path: Path) -> None:
    # TAU takes the 5 % lowest-similarity items against the ground truth (S3KG §3.3), by GoldSim, not CUS.
    # Item 1: GoldSim 1, CtxSim 0 (one-hot: nothing shared), CUS 0. Item 2: the answer adds OTHER to SAME;
    # T2' = [SAME]; semantic cos(mean(u1, u2), u1) = 1/sqrt(2); directed WL: the SAME component of the answer
    # matches G2' at every level, K12 = 3 * 6 = 18, K11 = 6 * 6, K22 = 3 * 6, S_WL = 1/sqrt(2); GoldSim =
    # 1/sqrt(2) = 0.707, CtxSim 1, CUS 0.828. The lowest CUS is item 1, the lowest GoldSim item 2.
    records = [
        qa_record("1", answer=SAME, gold=SAME, context=OTHER),
        qa_record("2", answer=SAME + OTHER, gold=SAME, context=SAME + OTHER),
    ]
    dataset = dataset_import_file(path=write_jsonl(tmp_path / "tau.jsonl", records), import_format="qa-jsonl")
    kg = KGSpec.from_dict({"extractor": "imported"})
    encoder = NamedOneHot()
    run = _score(dataset, kg, encoder)
    item2 = GraphScore.objects.get(generation__run=run, generation__question__key="2")
    assert item2.goldsim == pytest.approx(2**-0.5) and item2.cus == pytest.approx(2 * 2**-0.5 / (1 + 2**-0.5))
    assert run_tau(run=run, kg=kg, encoder=encoder) == 1  # type: ignore[arg-type]  # ceil(5 % of 2 items) = 1
    diagnosis = TauDiagnosis.objects.get()
    assert diagnosis.graph_score.generation.question.key == "2"
    assert diagnosis.counts == {"aligned": 1, "relation_wrong": 0, "entity_wrong": 0, "extra": 1, "missing": 0}
    assert diagnosis.aligned == [[0, 0, 1.0]]
    assert run_tau(run=run, kg=kg, encoder=encoder) == 0  # type: ignore[arg-type]


def test_generation_with_another_answer_than_the_imported_one_fails_counted(tmp_path: Path) -> None:
    kg = KGSpec.from_dict({"extractor": "imported"})
    dataset = _toy(tmp_path)
    run = kg_run_of_imported_answers(dataset=dataset, model="toy-7b", kg=kg)
    Generation.objects.filter(run=run, question__key="1").update(text="A different answer.")
    graph_scores_compute(generations=list(run.generations.all()), kg=kg, encoder=NamedOneHot())  # type: ignore[arg-type]
    failed = GraphScore.objects.get(generation__run=run, generation__question__key="1")
    assert failed.status == ScoreStatus.FAILED and "imported answer" in failed.skipped_reason
    assert GraphScore.objects.filter(generation__run=run).count() == 3


def test_second_pass_over_a_run_extracts_with_the_dependency_rules() -> None:
    dataset = Dataset.objects.create(name="mini", kind=Dataset.Kind.QA)
    context = Context.objects.create(dataset=dataset, key="c", text="Marie Curie discovered polonium in Paris.")
    questions = [
        Question.objects.create(
            dataset=dataset, context=context, key=k, text="Who?", ground_truth="Marie Curie discovered polonium."
        )
        for k in ("q1", "q2")
    ]
    endpoint = ModelEndpoint.objects.get(name="local")
    run = Run.objects.create(kind=Run.Kind.CDKE, dataset=dataset, spec={"models": ["local"]}, status=Run.Status.DONE)
    for q in questions:
        Generation.objects.create(
            run=run,
            question=q,
            model=endpoint,
            temperature=0.2,
            condition="divergent",
            text="Curie discovered polonium.",
            status=Generation.Status.DONE,
        )
    kg = KGSpec.from_dict({"extractor": "dependency"})
    counts = run_graph_pass(run=run, kg=kg, encoder=NamedOneHot())  # type: ignore[arg-type]
    assert (counts["generations"], counts["written"]) == (2, 2)
    # answer, gold and context texts: three graphs, the shared gold and answer texts extracted once
    assert KnowledgeGraph.objects.filter(extractor="dependency").count() == 3
    score = GraphScore.objects.filter(generation__run=run).first()
    assert score is not None and score.status == ScoreStatus.OK
    # answer (curie, discover, polonium) vs gold (marie curie, discover, polonium): one-hot, nothing aligns
    # but the relation label, so GoldSim lies strictly between 0 and 1
    assert score.goldsim is not None and 0.0 < score.goldsim < 1.0
    run.refresh_from_db()
    assert run.manifest["kg"]["extractor"] == "dependency"


def test_score_kg_qa_on_paper_graphs_matches_the_plain_python_core(shared_data: Path, tmp_path: Path) -> None:
    import json

    from scoring.cus import aggregate_cus
    from scoring.s3kg import s3kg_many
    from tests.scoring.s3kg_helpers import minilm

    source = shared_data / "s3kg_paper_kgs" / "mesaqa_gemma-7b-it_small.jsonl"
    lines = source.read_text().splitlines()[:10]
    small = tmp_path / "mesaqa10.jsonl"
    small.write_text("\n".join(lines) + "\n")
    out = tmp_path / "rows.json"
    call_command("score_kg_qa", str(small), variant=["s3kg_reference"], json=out)
    row = json.loads(out.read_text())["rows"][0]
    records = [json.loads(line) for line in lines]
    usable = [r for r in records if r["kg_llm"] and r["kg_gold"] and r["kg_context"]]
    pairs = [(r["kg_llm"], r["kg_gold"]) for r in usable] + [(r["kg_llm"], r["kg_context"]) for r in usable]
    results = s3kg_many(pairs, encoder=minilm(), variant="s3kg_reference")
    expected = aggregate_cus(
        [(g.score, c.score) for g, c in zip(results[: len(usable)], results[len(usable) :], strict=True)]
    )
    assert (row["n"], row["n_skipped"]) == (len(usable), len(records) - len(usable))
    assert row["goldsim"] == pytest.approx(expected["goldsim"]["mean"])
    assert row["cus"] == pytest.approx(expected["cus"]["mean"])
    assert set(row) >= {"file", "dataset", "model", "variant", "n", "n_skipped", "goldsim", "ctxsim", "cus"}
