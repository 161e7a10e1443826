"""A CDK-E run end to end against a real OpenAI-compatible server: cells, scores, reuse, cache, budget."""

import json
from collections.abc import Callable
from decimal import Decimal
from typing import Any

import pytest

from evalplatform.corpus.models import Dataset
from evalplatform.runs.launch import run_launch
from evalplatform.runs.models import CachedResponse, Generation, ModelEndpoint, Run
from evalplatform.runs.spec import SpecError
from scoring.cdke.results import error_class_rows, result_rows, run_results_json
from scoring.models import ErrorTypeJudgement, GenerationScore, StatementSet
from tests.runs.judge_server import JudgeServer

pytestmark = pytest.mark.django_db
EndpointFactory = Callable[..., ModelEndpoint]
SPEC = {"conditions": ["divergent", "real"], "per_context": 2, "temperatures": [0.2]}


@pytest.fixture
def launch(django_capture_on_commit_callbacks: Callable[..., Any]) -> Callable[..., Run]:
    """Launch a run and execute what it enqueues on commit (tasks run eagerly in these tests)."""

    def go(dataset: Dataset, budget_usd: Decimal | None = None, **spec: object) -> Run:
        with django_capture_on_commit_callbacks(execute=True):
            run = run_launch(dataset=dataset, spec=SPEC | spec, budget_usd=budget_usd)
        run.refresh_from_db()
        return run

    return go


def test_run_answers_every_cell_and_scores_every_metric_per_evaluator(
    launch: Callable[..., Run], sample_dataset: Dataset, endpoint_factory: EndpointFactory, judge_server: JudgeServer
) -> None:
    endpoint_factory("cand")
    endpoint_factory("judge-a")
    endpoint_factory("judge-b")
    run = launch(sample_dataset, models=["cand"], evaluators=["judge-a", "judge-b"])
    assert run.status == Run.Status.DONE
    assert run.progress_done == run.progress_total == 12 * 4  # per answer: itself, its ASS, two evaluators
    assert Generation.objects.filter(run=run, status="done").count() == 12  # 6 questions x 2 conditions
    for metric in ("fc", "ac", "acc", "cm", "lav"):
        assert GenerationScore.objects.filter(generation__run=run, metric=metric, status="ok").count() == 24
    assert GenerationScore.objects.filter(generation__run=run, metric="ass").count() == 12
    rows = {(r.evaluator, r.condition): r for r in result_rows(run)}
    assert set(rows) == {(e, c) for e in ("judge-a", "judge-b") for c in ("divergent", "real")}
    row = rows[("judge-a", "divergent")]
    assert (row.n, row.n_unparseable, row.n_failed) == (6, 0, 0)
    assert row.metrics["lav"].mean == 1.0 and row.metrics["acc"].mean == 1.0
    assert row.metrics["fc"].mean == 1.0  # every answer statement judged TP, no FN
    ass = row.metrics["ass"].mean
    # The default AC weighting is RAGAS's, 0.75 on FC, the one that reproduces paper C's Table 2.
    assert ass is not None and row.metrics["ac"].mean == pytest.approx(0.25 * ass + 0.75 * 1.0)
    assert run.manifest["metrics"]["fc_weight"] == 0.75 and run.manifest["metrics"]["judge_prompts"] == "2"


def test_ground_truth_statements_are_extracted_once_per_question_and_evaluator(
    launch: Callable[..., Run], sample_dataset: Dataset, endpoint_factory: EndpointFactory, judge_server: JudgeServer
) -> None:
    """4 models x 2 temperatures share the questions: the truths are split once, so AC costs
    2 + 1/8 judge calls per answer (answer statements, classification, the shared truth split)."""
    for i in range(4):
        endpoint_factory(f"cand-{i}", model_id=f"cand-{i}")
    endpoint_factory("judge-a")
    run = launch(
        sample_dataset,
        models=[f"cand-{i}" for i in range(4)],
        evaluators=["judge-a"],
        temperatures=[0.0, 0.7],
        conditions=["divergent"],
    )
    assert run.status == Run.Status.DONE
    n_questions = 6
    n_answers = n_questions * 4 * 2
    assert StatementSet.objects.filter(question__isnull=False).count() == n_questions
    calls = judge_server.count()
    ac_calls = calls["statements"] + calls["classify"]
    assert calls["answer"] == n_answers
    assert ac_calls / n_answers <= 2.13


def test_rerun_of_the_same_spec_is_served_from_the_cache_and_costs_nothing(
    launch: Callable[..., Run], sample_dataset: Dataset, endpoint_factory: EndpointFactory, judge_server: JudgeServer
) -> None:
    endpoint_factory("cand", price_input_per_mtok=Decimal("1"), price_output_per_mtok=Decimal("2"))
    endpoint_factory("judge-a")
    first = launch(sample_dataset, models=["cand"], evaluators=["judge-a"])
    sent = sum(judge_server.count().values())
    assert first.cost_usd > 0
    second = launch(sample_dataset, models=["cand"], evaluators=["judge-a"])
    assert second.status == Run.Status.DONE
    assert sum(judge_server.count().values()) == sent
    assert Generation.objects.filter(run=second, cached=True).count() == 12
    assert second.cost_usd == 0
    assert CachedResponse.objects.count() > 0
    bypass = launch(sample_dataset, models=["cand"], evaluators=["judge-a"], use_cache=False)
    assert Generation.objects.filter(run=bypass, cached=False).count() == 12
    assert judge_server.count()["answer"] == 24


def test_budget_stops_the_run_cleanly_and_says_why(
    launch: Callable[..., Run], sample_dataset: Dataset, endpoint_factory: EndpointFactory
) -> None:
    endpoint_factory("dear", price_input_per_mtok=Decimal("1000"), price_output_per_mtok=Decimal("1000"))
    run = launch(sample_dataset, budget_usd=Decimal("0.5"), models=["dear"])
    assert run.status == Run.Status.CANCELLED
    assert "budget" in run.status_reason
    assert run.cost_usd <= Decimal("0.5")
    assert Generation.objects.filter(run=run, status="pending").exists()


def test_real_condition_is_refused_on_contexts_without_real_text(
    launch: Callable[..., Run], endpoint_factory: EndpointFactory, shared_data: object, db: None
) -> None:
    from pathlib import Path

    from django.core.management import call_command

    call_command("import_dataset", str(Path(str(shared_data)) / "dkd"), format="dkd-dir", name="dkd")
    endpoint_factory("cand")
    with pytest.raises(SpecError, match="'real' needs the real source text, which 50 of the run's contexts lack"):
        run_launch(dataset=Dataset.objects.get(name="dkd"), spec={"models": ["cand"], "conditions": ["real"]})
    assert not Run.objects.exists()


def test_unknown_endpoint_is_refused_naming_the_field(sample_dataset: Dataset) -> None:
    with pytest.raises(SpecError, match="spec field 'evaluators': no active model endpoint named 'nobody'"):
        run_launch(dataset=sample_dataset, spec={"models": ["local"], "evaluators": ["nobody"]})


def test_error_classes_follow_the_recorded_alterations(
    launch: Callable[..., Run], sample_dataset: Dataset, endpoint_factory: EndpointFactory
) -> None:
    """The judge server's candidate echoes the question, which states neither version of the fact."""
    endpoint_factory("cand")
    run = launch(sample_dataset, models=["cand"], conditions=["divergent"])
    (row,) = error_class_rows(run)
    assert row.n == 6
    assert row.followed_context + row.reverted_to_prior + row.neither == pytest.approx(1.0)
    payload = run_results_json(run)
    assert payload["error_classes"][0]["condition"] == "divergent"
    assert payload["rows"][0]["lav"] is None  # no evaluator: nothing judged, null rather than 0


def test_the_ac_convention_and_the_judge_prompts_a_run_used_are_its_own(
    launch: Callable[..., Run], sample_dataset: Dataset, endpoint_factory: EndpointFactory, judge_server: JudgeServer
) -> None:
    endpoint_factory("cand")
    endpoint_factory("judge")
    run = launch(
        sample_dataset, models=["cand"], evaluators=["judge"], ac_convention="paper", judge_prompts="authors", limit=2
    )
    assert run.status == Run.Status.DONE
    rows = {r.condition: r for r in result_rows(run)}
    ass = rows["divergent"].metrics["ass"].mean
    # The text of paper C read literally: 0.25 on FC.
    assert ass is not None and rows["divergent"].metrics["ac"].mean == pytest.approx(0.75 * ass + 0.25 * 1.0)
    kinds = judge_server.count()
    # The authors' prompts ask Acc and Cm in one call, in their own plain-text format, without the context (so
    # the same answer under the divergent and the real context is one request, served once from the cache).
    assert kinds["authors_acc_cm"] == kinds["authors_lav"] == 2 and kinds["accuracy"] == kinds["completeness"] == 0
    prompt = next(p for kind, p in judge_server.prompts() if kind == "authors_acc_cm")
    assert "Context:" not in prompt and "without considering factual correctness" in prompt
    assert GenerationScore.objects.filter(generation__run=run, metric="acc", status="ok").count() == 4
    assert set(GenerationScore.objects.filter(generation__run=run).values_list("metric_version", flat=True)) >= {
        "judge@authors"
    }


def test_the_judges_of_the_current_prompts_see_the_context_the_candidate_saw(
    launch: Callable[..., Run], sample_dataset: Dataset, endpoint_factory: EndpointFactory, judge_server: JudgeServer
) -> None:
    endpoint_factory("cand")
    endpoint_factory("judge")
    launch(sample_dataset, models=["cand"], evaluators=["judge"], conditions=["divergent", "real", "none"], limit=1)
    question = sample_dataset.questions.order_by("context__position", "position").first()
    assert question is not None
    divergent_start = " ".join(question.context.text.split())[:60]
    real_start = " ".join(question.context.source_text.split())[:60]
    lav_prompts = [p for kind, p in judge_server.prompts() if kind == "lav"]
    assert len(lav_prompts) == 3
    assert sum(divergent_start in " ".join(p.split()) for p in lav_prompts) == 1
    assert sum(real_start in " ".join(p.split()) for p in lav_prompts) == 1
    assert sum("the model answered without a context" in p for p in lav_prompts) == 1
    accuracy = next(p for kind, p in judge_server.prompts() if kind == "accuracy")
    assert "0.25 = mostly incorrect" in accuracy and "never against what you know of the world" in accuracy


def test_a_verdict_that_invents_a_statement_is_repaired_then_counted_unparseable(
    launch: Callable[..., Run], sample_dataset: Dataset, endpoint_factory: EndpointFactory, judge_server: JudgeServer
) -> None:
    endpoint_factory("cand")
    endpoint_factory("judge")
    invented = json.dumps({"TP": ["A statement nobody extracted."], "FP": [], "FN": []})
    judge_server.inject("classify", ("reply", invented), ("reply", invented))
    run = launch(sample_dataset, models=["cand"], evaluators=["judge"], conditions=["divergent"], limit=1)
    fc = GenerationScore.objects.get(generation__run=run, metric="fc")
    assert fc.status == "unparseable" and fc.value is None and "not one of the answer statements" in fc.details["error"]
    assert GenerationScore.objects.get(generation__run=run, metric="ac").status == "unparseable"
    assert judge_server.count()["classify"] == 2  # the call and its one repair
    (row,) = result_rows(run)
    assert row.metrics["fc"].n_unparseable == 1 and row.metrics["fc"].mean is None


def test_an_invalid_answer_gets_its_error_type(
    launch: Callable[..., Run], sample_dataset: Dataset, endpoint_factory: EndpointFactory, judge_server: JudgeServer
) -> None:
    endpoint_factory("cand")
    endpoint_factory("judge")
    judge_server.inject("lav", ("reply", json.dumps({"verdict": "invalid"})))
    run = launch(sample_dataset, models=["cand"], evaluators=["judge"], conditions=["divergent"], limit=2)
    (judged,) = ErrorTypeJudgement.objects.filter(generation__run=run)
    assert (judged.label, judged.status, judged.scorer) == ("context_misalignment", "ok", "judge")
    assert judge_server.count()["error_type"] == 1  # only the invalid answer is asked about
