"""A world for the web tests: users of every role, a project with a small DKD dataset, a finished run with
answers, judge scores, knowledge graphs, a TAU diagnosis, and a similarity-benchmark run, all written as
rows (no model is called)."""

from dataclasses import dataclass
from decimal import Decimal

import pytest
from django.contrib.auth.models import User
from django.core.cache import cache
from rest_framework.test import APIClient

from evalplatform.corpus.models import Alteration, Context, Dataset, Project, Question, TextPair
from evalplatform.roles import user_add_role
from evalplatform.runs.models import Generation, ModelEndpoint, Run, StageProgress
from scoring.models import BenchmarkResult, GenerationScore, GraphScore, KnowledgeGraph, TauDiagnosis, Triplet

PASSWORD = "a-long-test-password-1"
ROLES = ("anonymous", "nobody", "annotator", "outsider", "researcher", "admin")


@dataclass
class World:
    users: dict[str, User]
    dataset: Dataset
    pairs: Dataset
    run: Run
    bench: Run
    generations: list[Generation]
    model: ModelEndpoint
    judge: ModelEndpoint


def make_user(name: str, role: str | None) -> User:
    user = User.objects.create_user(username=name, password=PASSWORD)
    if role:
        user_add_role(user=user, role=role)
    return user


def graph(text: str, triplets: list[tuple[str, str, str]]) -> KnowledgeGraph:
    kg = KnowledgeGraph.objects.create(
        text_hash=f"{abs(hash(text)):064d}"[:64], extractor="dependency", extractor_version="1", text=text
    )
    Triplet.objects.bulk_create(
        Triplet(graph=kg, position=i, head=h, relation=r, tail=t) for i, (h, r, t) in enumerate(triplets)
    )
    return kg


def make_world() -> World:
    users = {
        "nobody": make_user("nora-nobody", None),
        "annotator": make_user("anna-annotator", "annotator"),
        "outsider": make_user("oscar-outsider", "researcher"),
        "researcher": make_user("rita-researcher", "researcher"),
        "admin": make_user("ada-admin", "admin"),
    }
    project = Project.objects.create(name="divergent")
    project.members.add(users["researcher"])
    dataset = Dataset.objects.create(name="dkd-mini", kind=Dataset.Kind.DKD, project=project)
    contexts = []
    for c in range(2):
        context = Context.objects.create(
            dataset=dataset,
            key=f"c{c}",
            position=c,
            text=f"The <Eiffel> Tower was finished in 1901 in Lyon (context {c}).",
            source_text=f"The <Eiffel> Tower was finished in 1889 in Paris (context {c}).",
        )
        Alteration.objects.create(context=context, position=0, field="date", original="1889", divergent="1901")
        Alteration.objects.create(context=context, position=1, field="place", original="Paris", divergent="Lyon")
        contexts.append(context)
    questions = [
        Question.objects.create(
            dataset=dataset,
            context=contexts[i // 2],
            key=f"q{i}",
            position=i % 2,
            text=f"When? ({i})",
            ground_truth="In 1901.",
            original_answer="In 1889.",
            status=Question.Status.VALIDATED,
        )
        for i in range(4)
    ]
    model = ModelEndpoint.objects.create(
        name="cand", provider="openai_compatible", model_id="m", base_url="http://127.0.0.1:9/v1"
    )
    judge = ModelEndpoint.objects.create(
        name="judge", provider="openai_compatible", model_id="j", base_url="http://127.0.0.1:9/v1"
    )
    run = Run.objects.create(
        kind=Run.Kind.CDKE,
        dataset=dataset,
        status=Run.Status.DONE,
        created_by=users["researcher"],
        spec={
            "models": ["cand"],
            "evaluators": ["judge"],
            "temperatures": [0.2],
            "conditions": ["divergent"],
            "samples": 1,
        },
        progress_total=12,
        progress_done=12,
        cost_usd=Decimal("0.001"),
    )
    for stage in ("answer", "similarity", "judge"):  # 4 cells, one unit each per stage, all finished
        StageProgress.objects.create(run=run, stage=stage, per_cell=1, total=4, done=4)
    answers = ["In 1901.", "In 1889.", "In 1901, in Lyon.", "No idea."]
    generations = [
        Generation.objects.create(
            run=run, question=q, model=model, temperature=0.2, condition="divergent", status="done", text=a
        )
        for q, a in zip(questions, answers, strict=True)
    ]
    lav = [1.0, 0.0, 1.0, 0.0]
    for g, v in zip(generations, lav, strict=True):
        GenerationScore.objects.create(generation=g, scorer="minilm", metric="ass", value=0.5 + v / 4)
        for metric in ("lav", "acc", "cm", "fc", "ac"):
            GenerationScore.objects.create(
                generation=g,
                scorer="judge",
                evaluator=judge,
                metric=metric,
                value=v,
                raw_output='{"verdict": "valid"} <raw & judge>',
            )
    GenerationScore.objects.filter(generation=generations[3], metric="cm").update(
        status="unparseable", value=None, raw_output="garbled <b>judge</b>"
    )
    answer_kg = graph("a", [("tower", "finish in", "1901")])
    gold_kg = graph("g", [("tower", "finish in", "1901"), ("tower", "in", "lyon")])
    ctx_kg = graph("c", [("tower", "finish in", "1901"), ("tower", "in", "lyon"), ("tower", "name", "eiffel")])
    score = GraphScore.objects.create(
        generation=generations[0],
        variant="s3kg",
        variant_version="1",
        encoder="minilm",
        answer_graph=answer_kg,
        gold_graph=gold_kg,
        context_graph=ctx_kg,
        goldsim=0.8,
        ctxsim=0.6,
        cus=0.6857,
    )
    TauDiagnosis.objects.create(
        graph_score=score, aligned=[[0, 0, 0.99]], missing=[["tower", "in", "lyon"]], counts={"missing": 1}
    )
    pairs = Dataset.objects.create(name="mrpc-mini", kind=Dataset.Kind.PAIRS, project=project)
    TextPair.objects.create(dataset=pairs, key="p0", text_a="a", text_b="b", label=1)
    bench = Run.objects.create(
        kind=Run.Kind.SIMILARITY_BENCHMARK, dataset=pairs, status=Run.Status.DONE, spec={"methods": ["s3kg", "bleu"]}
    )
    for method, f1 in [("bleu", 0.5), ("s3kg@alpha=0.0", 0.6), ("s3kg@alpha=0.5", 0.7), ("s3kg@alpha=1.0", 0.65)]:
        BenchmarkResult.objects.create(run=bench, method=method, n=1, f1=f1, auroc=f1 + 0.1)
    return World(users, dataset, pairs, run, bench, generations, model, judge)


@pytest.fixture(autouse=True)
def _fresh_throttles() -> None:
    """Throttle counters live in the cache: each test starts with none."""
    cache.clear()


@pytest.fixture
def world(db: None) -> World:
    return make_world()


def client_for(world: World, role: str) -> APIClient:
    client = APIClient()
    if role != "anonymous":
        client.force_login(world.users[role])
    return client


# The prompt-aware OpenAI-compatible server and its endpoint factory, shared with the pipeline tests.
from tests.runs.conftest import endpoint_factory, judge_server  # noqa: E402, F401
