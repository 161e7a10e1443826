"""Launch everything from the API and the launch page: a CDK-E run with every command-line option and a choice of
metrics, a knowledge-graph run, a graph pass over a run, a similarity benchmark, fabrication and question generation;
unknown fields are a 400; the estimate gives time beside cost, answer calls apart from judge calls. The runs call a
real OpenAI-compatible server (tests/runs/judge_server.py); the tasks run eagerly when the launch commits."""

from collections.abc import Callable
from typing import Any

import pytest
from django.core.management import call_command

from evalplatform.corpus.models import Dataset, Question, TextPair
from evalplatform.runs.models import ModelEndpoint, Run
from scoring.models import BenchmarkResult, GenerationScore, GraphScore
from tests.conftest import SAMPLE_DKD
from tests.runs.judge_server import JudgeServer
from tests.web.conftest import World, client_for

pytestmark = pytest.mark.django_db
EndpointFactory = Callable[..., ModelEndpoint]


@pytest.fixture
def sample(world: World) -> Dataset:
    call_command("import_dataset", str(SAMPLE_DKD), format="dkd", name="sample", project="divergent")
    return Dataset.objects.get(name="sample")


def test_a_cdke_run_with_every_option_and_only_ac_asks_only_acs_calls(
    world: World,
    sample: Dataset,
    endpoint_factory: EndpointFactory,
    judge_server: JudgeServer,
    django_capture_on_commit_callbacks: Callable[..., Any],
) -> None:
    endpoint_factory("w-cand")
    endpoint_factory("judge-a")
    Question.objects.filter(dataset=sample).update(status=Question.Status.VALIDATED)
    body = {
        "dataset": "sample",
        "models": ["w-cand"],
        "evaluators": ["judge-a"],
        "temperatures": [0.2],
        "conditions": ["divergent", "real"],
        "samples": 2,
        "seed": 5,
        "per_context": 1,
        "limit": 2,
        "only_validated": True,
        "use_cache": False,
        "ac_convention": "paper",
        "judge_prompts": "authors",
        "metrics": ["ac"],
        "kg": {"extractor": "dependency", "variants": ["s3kg", "s3kg_reference"], "alpha": 0.4},
        "budget_usd": "5.0",
    }
    client = client_for(world, "researcher")
    estimate = client.post("/api/runs/estimate/", body, format="json").json()
    parts = {p["stage"]: p for p in estimate["parts"]}
    # 2 questions x 2 conditions x 2 samples = 8 answers; AC asks 2 judge calls per answer (the answer's statements
    # and their classification) and the ground truth's statements once per question: 8 x 2 + 2 = 18.
    assert parts["answer"]["n_requests"] == 8 and parts["judge"]["n_requests"] == 18
    assert parts["answer"]["label"] == "answer calls" and parts["judge"]["label"] == "judge calls"
    assert parts["answer"]["endpoints"][0]["latency_source"] == "assumed"
    assert estimate["seconds_high"] == pytest.approx(8 * 1.0 / 4 + 18 * 1.0 / 4)  # 1 s assumed, 4 at once
    assert estimate["seconds_low"] == pytest.approx(18 / 4)
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post("/api/runs/", body, format="json")
    assert response.status_code == 201, response.content
    run = Run.objects.get(pk=response.json()["id"])
    spec = run.spec
    assert (spec["samples"], spec["seed"], spec["per_context"], spec["limit"]) == (2, 5, 1, 2)
    assert spec["only_validated"] is True and spec["use_cache"] is False
    assert (spec["ac_convention"], spec["judge_prompts"]) == ("paper", "authors")
    assert spec["metrics"] == ["fc", "ac"]  # AC is computed from FC
    assert spec["kg"]["variants"] == ["s3kg", "s3kg_reference"] and spec["kg"]["alpha"] == 0.4
    assert str(run.budget_usd) == "5.0000" and run.manifest["metrics"]["judge_metrics"] == ["fc", "ac"]
    run.refresh_from_db()
    assert run.status == Run.Status.DONE, run.status_reason
    scores = GenerationScore.objects.filter(generation__run=run)
    assert scores.filter(metric="ac", status="ok").count() == 8
    assert scores.filter(metric__in=["acc", "cm", "lav"], status="skipped").count() == 24
    assert scores.filter(status="failed").count() == 0
    counts = judge_server.count()
    assert counts["authors_acc_cm"] == 0 and counts["authors_lav"] == 0  # no call for a metric not chosen
    # Statements are extracted once per text: this server answers a question in the same words in both conditions
    # and samples, so 2 answers' texts and 2 ground truths (the estimate counts the most it could be, 8 + 2).
    assert counts["classify"] == 8 and counts["statements"] == 2 + 2
    assert GraphScore.objects.filter(generation__run=run).values("variant").distinct().count() == 2
    data = client.get(f"/api/runs/{run.pk}/results/").json()
    row = data["rows"][0]
    assert row["ac"] is not None and row["acc"] is None and row["n_failed"] == 0


@pytest.mark.parametrize(
    ("extra", "field"),
    [
        ({"kgg": {"extractor": "dependency"}}, "kgg"),
        ({"kg": {"extractor": "dependency", "bogus": 1}}, "kg"),
        ({"metrics": ["lav", "bleu"]}, "metrics"),
        ({"kg": {"extractor": "spacy"}}, "kg.extractor"),
    ],
)
def test_unknown_fields_and_bad_options_are_a_400_and_nothing_is_launched(
    world: World, extra: dict[str, Any], field: str
) -> None:
    client = client_for(world, "researcher")
    body = {"dataset": "dkd-mini", "models": ["cand"]} | extra
    before = Run.objects.count()
    for url in ("/api/runs/", "/api/runs/estimate/"):
        response = client.post(url, body, format="json")
        assert response.status_code == 400 and field in response.json(), (url, response.content)
    assert Run.objects.count() == before


def test_a_kg_run_and_a_graph_pass_over_an_existing_run(
    world: World,
    sample: Dataset,
    endpoint_factory: EndpointFactory,
    judge_server: JudgeServer,
    django_capture_on_commit_callbacks: Callable[..., Any],
) -> None:
    endpoint_factory("w-cand")
    client = client_for(world, "researcher")
    body = {"dataset": "sample", "kind": "kg", "models": ["w-cand"], "limit": 2, "kg": {"extractor": "dependency"}}
    assert client.post("/api/runs/", body | {"kg": None}, format="json").status_code == 400  # a kg run needs kg
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post("/api/runs/", body, format="json")
    assert response.status_code == 201 and response.json()["kind"] == "kg"
    kg_run = Run.objects.get(pk=response.json()["id"])
    assert GraphScore.objects.filter(generation__run=kg_run).count() == 2
    # A graph pass over a CDK-E run that had none: 202, then its graph scores are there.
    cdke = Run.objects.create(kind=Run.Kind.CDKE, dataset=sample, spec={"models": ["w-cand"]}, status=Run.Status.DONE)
    for generation in kg_run.generations.all():
        generation.pk = None
        generation.run = cdke
        generation.save()
    url = f"/api/runs/{cdke.pk}/graphs/"
    assert client.post(url, {"extractor": "imported"}, format="json").status_code == 400
    assert client.post(url, {"extractor": "dependency", "colour": "red"}, format="json").status_code == 400
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(url, {"extractor": "dependency", "variants": ["s3kg"]}, format="json")
    assert response.status_code == 202 and response.json()["queued"] == "graph_pass"
    assert GraphScore.objects.filter(generation__run=cdke).count() == 2
    assert client_for(world, "outsider").post(url, {}, format="json").status_code == 404


def test_a_similarity_benchmark_is_launched_and_its_results_are_the_projects(
    world: World, django_capture_on_commit_callbacks: Callable[..., Any]
) -> None:
    pairs = world.pairs
    TextPair.objects.create(dataset=pairs, key="p1", text_a="The cat sat.", text_b="A dog ran far away.", label=0)
    TextPair.objects.filter(key="p0").update(text_a="The cat sat on the mat.", text_b="On the mat sat the cat.")
    client = client_for(world, "researcher")
    assert client.post("/api/benchmarks/launch/", {"dataset": "dkd-mini"}, format="json").status_code == 400
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post("/api/benchmarks/launch/", {"dataset": "mrpc-mini"}, format="json")
    assert response.status_code == 202
    run = Run.objects.filter(kind=Run.Kind.SIMILARITY_BENCHMARK, created_by=world.users["researcher"]).get()
    assert BenchmarkResult.objects.filter(run=run, method="s3kg").exists()
    # Another researcher of the project sees it: benchmark results belong to the project's researchers.
    colleague = world.users["outsider"]
    assert pairs.project is not None
    pairs.project.members.add(colleague)
    seen = client_for(world, "outsider").get(f"/api/benchmarks/?run={run.pk}").json()
    assert seen["count"] >= 1


def test_fabrication_and_question_generation_from_the_api(
    world: World,
    sample: Dataset,
    endpoint_factory: EndpointFactory,
    judge_server: JudgeServer,
    django_capture_on_commit_callbacks: Callable[..., Any],
) -> None:
    endpoint_factory("gen")
    client = client_for(world, "researcher")
    assert client.post("/api/datasets/sample/fabricate/", {"into": "fab", "generator": "nope"}).status_code == 400
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post("/api/datasets/sample/fabricate/", {"into": "fab", "generator": "gen", "limit": 1})
    assert response.status_code == 202
    fabricated = Dataset.objects.get(name="fab")
    assert fabricated.contexts.count() == 1 and fabricated.project == sample.project
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post("/api/datasets/fab/generate-questions/", {"generator": "gen", "per_context": 3})
    assert response.status_code == 202
    assert Question.objects.filter(dataset=fabricated, status=Question.Status.DRAFT).count() == 3


def test_the_launch_page_estimates_time_and_launches_a_kg_run(
    world: World,
    sample: Dataset,
    endpoint_factory: EndpointFactory,
    judge_server: JudgeServer,
    django_capture_on_commit_callbacks: Callable[..., Any],
) -> None:
    endpoint_factory("w-cand")
    endpoint_factory("judge-a")
    client = client_for(world, "researcher")
    page = client.get("/runs/launch/?dataset=sample")
    assert page.status_code == 200
    for name in ("per_context", "only_validated", "no_cache", "ac_convention", "judge_prompts", "metrics", "seed"):
        assert f'name="{name}"'.encode() in page.content, name
    form = {
        "dataset": "sample",
        "kind": "cdke",
        "models": ["w-cand"],
        "evaluators": ["judge-a"],
        "metrics": ["lav"],
        "temperatures": "0.2",
        "conditions": ["divergent"],
        "samples": "1",
        "seed": "0",
        "limit": "2",
        "judge_prompts": "2",
        "ac_convention": "ragas",
        "kg_alpha": "0.5",
        "no_cache": "on",
    }
    estimate = client.post("/runs/launch/", form | {"action": "estimate"})
    assert estimate.status_code == 200
    text = estimate.content.decode()
    assert "answer calls" in text and "judge calls" in text and 'id="estimate-time"' in text
    refused = client.post("/runs/launch/", form | {"kind": "kg", "action": "estimate"})
    assert refused.status_code == 400 and "needs a graph extractor" in refused.content.decode()
    with django_capture_on_commit_callbacks(execute=True):
        done = client.post("/runs/launch/", form | {"kind": "kg", "kg_extractor": "dependency", "action": "launch"})
    assert done.status_code == 302
    run = Run.objects.latest("pk")
    assert run.kind == "kg" and run.spec["kg"]["extractor"] == "dependency" and run.spec["metrics"] == ["lav"]
    assert run.spec["use_cache"] is False
