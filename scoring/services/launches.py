"""Launching the methods' longer jobs from a page or the API: a knowledge-graph pass over an existing run, a
similarity benchmark over a pairs dataset, the fabrication of divergent contexts and the generation of draft
questions. Each is checked here (a bad request writes nothing), recorded with an audit event and sent to the workers
once the transaction commits; the work itself is the services' (``kg_runs``, ``benchmark``, ``scoring.cdke``)."""

from __future__ import annotations

from django.contrib.auth.models import User
from django.db import transaction

from evalplatform.audit.services import audit_record
from evalplatform.corpus.models import Dataset
from evalplatform.corpus.selectors import datasets_visible_to
from evalplatform.runs.models import ModelEndpoint, Run
from evalplatform.runs.spec import SpecError
from scoring.cdke.retest import RetestError, retest_start
from scoring.cdke.tasks import retest_enqueue
from scoring.kg_spec import KGSpec
from scoring.models import RetestBatch
from scoring.tasks import fabricate_task, graph_pass_task, questions_task, similarity_benchmark_task

BENCHMARK_EXTRACTORS = ("dependency", "given")


class LaunchError(ValueError):
    """A launch that cannot be done; ``field`` names what to change."""

    def __init__(self, field_name: str, message: str):
        self.field = field_name
        super().__init__(message)


def _endpoint(name: str, field_name: str) -> ModelEndpoint:
    endpoint = ModelEndpoint.objects.filter(name=name, is_active=True).exclude(provider="imported").first()
    if endpoint is None:
        raise LaunchError(field_name, f"no active model endpoint named '{name}'")
    return endpoint


def graph_pass_launch(*, run: Run, kg: KGSpec, use_cache: bool, actor: User | None) -> None:
    """Graphs, S3KG per variant, CUS and TAU over a run's answered generations (``run_kg --run``)."""
    if run.kind == Run.Kind.SIMILARITY_BENCHMARK:
        raise LaunchError("run", "a similarity benchmark has no answers to draw graphs of")
    if kg.extractor_kind == "imported":
        raise LaunchError("kg.extractor", "a pass over a run's answers extracts graphs: dependency or llm:<endpoint>")
    if kg.endpoint_name:
        _endpoint(kg.endpoint_name, "kg.extractor")
    with transaction.atomic():
        audit_record(
            actor=actor,
            action="run.graph_pass",
            obj=run,
            payload={"kg": kg.to_dict(), "use_cache": use_cache},
            dataset=run.dataset,
        )
        transaction.on_commit(lambda: graph_pass_task.delay(run.pk, kg.to_dict(), use_cache))


def benchmark_launch(*, dataset: Dataset, extractor: str, alpha_sweep: bool, actor: User | None) -> None:
    """Every S3KG variant and baseline as a paraphrase detector on a pairs dataset's labelled pairs (S3KG Table 1)."""
    if dataset.kind != Dataset.Kind.PAIRS:
        raise LaunchError("dataset", f"dataset '{dataset.name}' holds no text pairs")
    if not dataset.pairs.filter(label__isnull=False).exists():
        raise LaunchError("dataset", f"dataset '{dataset.name}' has no labelled pair")
    if extractor.startswith("llm:"):
        _endpoint(extractor.split(":", 1)[1], "extractor")
    elif extractor not in BENCHMARK_EXTRACTORS:
        raise LaunchError("extractor", "must be dependency, given (the pairs' own graphs) or llm:<endpoint>")
    with transaction.atomic():
        audit_record(
            actor=actor,
            action="benchmark.launch",
            obj=dataset,
            payload={"extractor": extractor, "alpha_sweep": alpha_sweep},
            dataset=dataset,
        )
        actor_id = actor.pk if actor is not None else None
        transaction.on_commit(lambda: similarity_benchmark_task.delay(dataset.pk, extractor, alpha_sweep, actor_id))


def fabrication_launch(
    *, source: Dataset, target_name: str, generator: str, n_alterations: int, limit: int | None, actor: User
) -> None:
    """CDK-E step 1: rewrite the source's real texts into divergent contexts of a dkd dataset ``target_name`` (made,
    or continued where an earlier fabrication stopped)."""
    endpoint = _endpoint(generator, "generator")
    target = Dataset.objects.filter(name=target_name).order_by("-version").first()
    if target is not None and not datasets_visible_to(actor).filter(pk=target.pk).exists():
        raise LaunchError("into", f"the name '{target_name}' is taken by a dataset you cannot see")
    if target is not None and Dataset.objects.filter(name=target_name).count() > 1:
        raise LaunchError("into", f"'{target_name}' has several versions: fabricate into a new name")
    if not 1 <= n_alterations <= 50:
        raise LaunchError("alterations", "must be a whole number from 1 to 50")
    with transaction.atomic():
        audit_record(
            actor=actor,
            action="fabricate.launch",
            obj=source,
            payload={"into": target_name, "generator": generator, "alterations": n_alterations, "limit": limit},
            dataset=source,
        )
        transaction.on_commit(
            lambda: fabricate_task.delay(source.pk, target_name, endpoint.pk, n_alterations, limit, actor.pk)
        )


def questions_launch(*, dataset: Dataset, generator: str, per_context: int, limit: int | None, actor: User) -> None:
    """CDK-E step 2: draft questions answerable only from each context's divergent facts, for review."""
    endpoint = _endpoint(generator, "generator")
    if dataset.kind != Dataset.Kind.DKD:
        raise LaunchError("dataset", "questions are generated for the divergent contexts of a dkd dataset")
    if not 1 <= per_context <= 100:
        raise LaunchError("per_context", "must be a whole number from 1 to 100")
    with transaction.atomic():
        audit_record(
            actor=actor,
            action="questions.launch",
            obj=dataset,
            payload={"generator": generator, "per_context": per_context, "limit": limit},
            dataset=dataset,
        )
        transaction.on_commit(lambda: questions_task.delay(dataset.pk, endpoint.pk, per_context, limit, actor.pk))


def kg_options(data: object) -> KGSpec:
    """The knowledge-graph options of a request, or ``LaunchError`` on the first bad one."""
    try:
        return KGSpec.from_dict(data)
    except SpecError as exc:
        raise LaunchError(exc.field, str(exc)) from exc


def retest_launch(*, run: Run, sample_size: int, seed: int, actor: User | None) -> RetestBatch:
    """A test–retest of a finished run's judges (``scoring.cdke.retest``): planned (or found, to resume) and
    audited, then its missing units sent to the llm workers once the transaction commits."""
    try:
        with transaction.atomic():
            batch = retest_start(run=run, sample_size=sample_size, seed=seed, actor=actor)
            transaction.on_commit(lambda: retest_enqueue(batch))
    except RetestError as exc:
        raise LaunchError(exc.field, str(exc)) from exc
    return batch
