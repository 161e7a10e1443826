"""Knowledge-graph runs: TAU over a run's lowest items, a second graph pass over a CDK-E run, runs of imported
answers (their results are read by ``scoring.kg_results``).

TAU (S3KG §3.3, Arumugam et al.) diagnoses the 5 % lowest-GoldSim items of each (model, temperature, condition)
group of a run, per variant; its indices refer to ``graph_triplets`` of the answer and gold graphs. Each new
diagnosis of the run's first variant sends the ``tau_diagnosed`` signal (``scoring.signals``) inside the
transaction that stores it; the annotation app, above this one, receives it and queues a TAU item for three
blind alignment labels.
"""

from __future__ import annotations

import logging
from collections import defaultdict
from collections.abc import Iterable

from django.db import IntegrityError, transaction
from django.utils import timezone
from django.utils.text import slugify

from evalplatform.corpus.models import Dataset
from evalplatform.runs.models import Generation, ModelEndpoint, Run
from evalplatform.runs.services import run_reconcile_progress
from evalplatform.runs.spec import RunSpec
from scoring.embeddings import Encoder, get_encoder
from scoring.kg_results import run_kg_spec
from scoring.kg_spec import KGSpec
from scoring.models import GraphScore, ScoreStatus, TauDiagnosis
from scoring.services.graph_scores import graph_scores_compute
from scoring.services.graphs import graph_triplets
from scoring.signals import tau_diagnosed
from scoring.tau import TAU_THRESHOLD, tau_diagnose, tau_lowest

log = logging.getLogger(__name__)
IMPORTED_PROMPT_VERSION = "imported"


def _groups(scores: Iterable[GraphScore]) -> dict[tuple[int, float, str], list[GraphScore]]:
    groups: dict[tuple[int, float, str], list[GraphScore]] = defaultdict(list)
    for score in scores:
        g = score.generation
        groups[(g.model_id, g.temperature, g.condition)].append(score)
    return groups


def run_tau(*, run: Run, kg: KGSpec | None = None, encoder: Encoder | None = None) -> int:
    """TAU on the lowest ``tau_fraction`` of each group's scored items, per variant; returns new diagnoses.

    Idempotent: an item diagnosed before is left as it is (one diagnosis per GraphScore)."""
    kg = kg or run_kg_spec(run)
    encoder = encoder or get_encoder(kg.encoder)
    created = 0
    for position, variant in enumerate(kg.variants):
        scores = (
            GraphScore.objects.filter(
                generation__run=run, variant=variant, encoder=encoder.name, alpha=kg.alpha, status=ScoreStatus.OK
            )
            .select_related("generation", "answer_graph", "gold_graph")
            .order_by("pk")
        )
        for group in _groups(scores).values():
            lowest = tau_lowest([(s, float(s.goldsim or 0.0)) for s in group], kg.tau_fraction)
            for score in lowest:
                if TauDiagnosis.objects.filter(graph_score=score).exists():
                    continue
                answer, gold = graph_triplets(score.answer_graph), graph_triplets(score.gold_graph)
                result = tau_diagnose(answer, gold, encoder=encoder)
                try:
                    with transaction.atomic():
                        TauDiagnosis.objects.create(
                            graph_score=score,
                            threshold=TAU_THRESHOLD,
                            aligned=[[a, g, round(c, 6)] for a, g, c in result.aligned],
                            relation_wrong=[list(p) for p in result.relation_wrong],
                            entity_wrong=[list(p) for p in result.entity_wrong],
                            extra=list(result.extra),
                            missing=list(result.missing),
                            counts=result.counts,
                        )
                        if position == 0:
                            tau_diagnosed.send(
                                sender=TauDiagnosis,
                                graph_score=score,
                                answer=[list(t) for t in answer],
                                gold=[list(t) for t in gold],
                            )
                except IntegrityError:
                    continue  # another worker diagnosed it first
                created += 1
    return created


def run_graph_pass(*, run: Run, kg: KGSpec, use_cache: bool = True, encoder: Encoder | None = None) -> dict[str, int]:
    """A second scoring pass over an existing run's answered generations: graphs, S3KG per variant, TAU.

    The options are recorded in the run's manifest (``manifest["kg"]``) so the results know them; the
    run's spec, status and progress are left as they are."""
    if not run.spec.get("kg"):
        manifest = dict(run.manifest or {})
        manifest["kg"] = kg.to_dict()
        Run.objects.filter(pk=run.pk).update(manifest=manifest)
        run.manifest = manifest
    generations = list(
        Generation.objects.filter(run=run, status=Generation.Status.DONE)
        .select_related("question__context", "model")
        .order_by("question__context__position", "question__position", "pk")
    )
    written = graph_scores_compute(generations=generations, kg=kg, use_cache=use_cache, encoder=encoder)
    diagnosed = run_tau(run=run, kg=kg, encoder=encoder)
    return {"generations": len(generations), "written": written, "tau": diagnosed}


def imported_endpoint(model: str) -> ModelEndpoint:
    """The endpoint that stands for a model whose answers were imported with the data (never called)."""
    name = "imported-" + (slugify(model)[:80] or "model")
    endpoint, _ = ModelEndpoint.objects.get_or_create(
        name=name,
        defaults={"provider": ModelEndpoint.Provider.IMPORTED, "model_id": model, "is_active": False},
    )
    return endpoint


@transaction.atomic
def kg_run_of_imported_answers(*, dataset: Dataset, model: str, kg: KGSpec) -> Run:
    """A kg run holding the answers imported with a QA dataset for one model, as done Generations.

    Reused when one exists for the same dataset, model and options (a second call scores nothing twice)."""
    endpoint = imported_endpoint(model)
    spec = RunSpec.from_dict({"models": [endpoint.name], "temperatures": [0.0], "kg": kg.to_dict()}).to_dict()
    for existing in Run.objects.filter(kind=Run.Kind.KG, dataset=dataset).order_by("pk"):
        if existing.spec == spec:
            return existing
    questions = [
        q
        for q in dataset.questions.select_related("context").order_by("context__position", "position", "pk")
        if (q.metadata or {}).get("model") == model and isinstance((q.metadata or {}).get("llm_answer"), str)
    ]
    run = Run.objects.create(
        kind=Run.Kind.KG,
        dataset=dataset,
        spec=spec,
        status=Run.Status.RUNNING,
        started_at=timezone.now(),
        planned_at=timezone.now(),  # its cells, the imported answers, are written just below
        manifest={"pipeline": "kg-imported@1", "answers": f"imported with the data ({model})", "kg": kg.to_dict()},
    )
    Generation.objects.bulk_create(
        [
            Generation(
                run=run,
                question=q,
                model=endpoint,
                temperature=0.0,
                condition=Run.Condition.DIVERGENT,
                prompt_version=IMPORTED_PROMPT_VERSION,
                text=str(q.metadata["llm_answer"]),
                status=Generation.Status.DONE,
            )
            for q in questions
        ],
        ignore_conflicts=True,
    )
    run_reconcile_progress(run_id=run.pk)  # its answers are in: their units count as finished
    return run
