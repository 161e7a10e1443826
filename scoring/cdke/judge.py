"""CDK-E step 4: score one answer, by embedding (ASS) and with each evaluator (FC, AC, Acc, Cm, LAV; paper C,
3.4). Every score is written under its unique constraint, so a retried task never duplicates one; an
unparseable judge output (after one repair) is stored as such with its raw text, never as 0."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from django.db import transaction

from evalplatform.hashing import text_hash
from evalplatform.llm.client import LLMClient
from evalplatform.llm.errors import ProviderError, TransientProviderError
from evalplatform.llm.prompts.base import PromptTemplate
from evalplatform.llm.structured import StructuredOutcome, structured_call
from evalplatform.runs.clients import constraint_for, mode_for
from evalplatform.runs.models import Generation, ModelEndpoint
from scoring.cdke.metrics import answer_correctness, clip_unit, statement_f1
from scoring.cdke.prompts import (
    CLASSIFY_STATEMENTS,
    EXTRACT_STATEMENTS,
    SCORE_ACCURACY,
    SCORE_COMPLETENESS,
    VALIDATE_ANSWER,
)
from scoring.cdke.verdicts import parse_classification, parse_lav, parse_scale, parse_statements
from scoring.embeddings import Encoder
from scoring.models import GenerationScore, ScoreStatus, StatementSet

ASS_VERSION = "ass@1"
AC_VERSION = "ac@1"
JUDGE_METRICS = ("fc", "ac", "acc", "cm", "lav")
# Judge calls per scored answer and evaluator, for the pre-flight estimate: answer statements, classification,
# Acc, Cm, LAV (the ground-truth statements are shared, counted once per question).
JUDGE_CALLS_PER_ANSWER = 5
Metric = GenerationScore.Metric


def ass_record(*, generation: Generation, encoder: Encoder) -> GenerationScore:
    """ASS: cosine of the embeddings of answer and ground truth, clipped to [0, 1]. Once per generation."""
    existing = GenerationScore.objects.filter(generation=generation, metric=Metric.ASS, scorer=encoder.name).first()
    if existing is not None:
        return existing
    answer, truth = encoder.encode([generation.text, generation.question.ground_truth])
    value = clip_unit(float(answer @ truth))
    GenerationScore.objects.bulk_create(
        [
            GenerationScore(
                generation=generation,
                scorer=encoder.name,
                metric=Metric.ASS,
                value=value,
                metric_version=ASS_VERSION,
            )
        ],
        ignore_conflicts=True,
    )
    return GenerationScore.objects.get(generation=generation, metric=Metric.ASS, scorer=encoder.name)


@dataclass
class JudgeContext:
    """What every judge call of one evaluator on one run needs."""

    evaluator: ModelEndpoint
    client: LLMClient
    use_cache: bool = True
    cost_usd: float = 0.0
    calls: int = 0

    def call(self, template: PromptTemplate, parser: Any, values: dict[str, object]) -> StructuredOutcome[Any]:
        outcome = structured_call(
            self.client,
            template,
            parser,
            model=self.evaluator.model_id,
            values=values,
            mode=mode_for(self.evaluator),
            constrain=constraint_for(self.evaluator),
            temperature=0.0,
            seed=0,
            use_cache=self.use_cache,
        )
        self.calls += sum(0 if r.cached else 1 for r in outcome.responses)
        self.cost_usd += sum(r.cost_usd for r in outcome.responses)
        return outcome


@dataclass
class MetricResult:
    metric: str
    value: float | None
    status: str
    raw: str = ""
    details: dict[str, Any] = field(default_factory=dict)


def _from_outcome(metric: str, outcome: StructuredOutcome[Any], value: float | None) -> MetricResult:
    if outcome.status == "ok":
        return MetricResult(metric, value, ScoreStatus.OK, outcome.raw, {"calls": len(outcome.responses)})
    return MetricResult(
        metric, None, ScoreStatus.UNPARSEABLE, outcome.raw, {"calls": len(outcome.responses), "error": outcome.error}
    )


def statements_for(
    judge: JudgeContext, *, question_text: str, text: str, question_id: int | None = None
) -> StatementSet:
    """The evaluator's atomic statements of a text, extracted once per (evaluator, text, prompt version):
    a ground truth is split once and reused by every model, temperature and sample of the run."""
    digest = text_hash(text)
    version = EXTRACT_STATEMENTS.version_tag
    found = StatementSet.objects.filter(evaluator=judge.evaluator, text_hash=digest, prompt_version=version).first()
    if found is not None:
        return found
    outcome = judge.call(EXTRACT_STATEMENTS, parse_statements, {"question": question_text, "text": text})
    StatementSet.objects.bulk_create(
        [
            StatementSet(
                evaluator=judge.evaluator,
                text_hash=digest,
                prompt_version=version,
                question_id=question_id,
                statements=list(outcome.value or []),
                status=ScoreStatus.OK if outcome.status == "ok" else ScoreStatus.UNPARSEABLE,
                raw_output=outcome.raw,
            )
        ],
        ignore_conflicts=True,
    )
    return StatementSet.objects.get(evaluator=judge.evaluator, text_hash=digest, prompt_version=version)


def factual_correctness(judge: JudgeContext, generation: Generation) -> MetricResult:
    """FC from statements: TP / (TP + 0.5 (FP + FN))."""
    question = generation.question
    truth = statements_for(judge, question_text=question.text, text=question.ground_truth, question_id=question.pk)
    answer = statements_for(judge, question_text=question.text, text=generation.text)
    for side, found in (("ground truth", truth), ("answer", answer)):
        if found.status != ScoreStatus.OK:
            return MetricResult(
                Metric.FC, None, ScoreStatus.UNPARSEABLE, found.raw_output, {"error": f"{side} statements unparseable"}
            )
    outcome = judge.call(
        CLASSIFY_STATEMENTS,
        parse_classification,
        {
            "question": question.text,
            "answer_statements": json.dumps(answer.statements, ensure_ascii=False),
            "truth_statements": json.dumps(truth.statements, ensure_ascii=False),
        },
    )
    if outcome.status != "ok" or outcome.value is None:
        return _from_outcome(Metric.FC, outcome, None)
    c = outcome.value
    fc = statement_f1(len(c.tp), len(c.fp), len(c.fn))
    details = {
        "answer_statements": answer.statements,
        "truth_statements": truth.statements,
        "tp": list(c.tp),
        "fp": list(c.fp),
        "fn": list(c.fn),
    }
    if fc is None:
        return MetricResult(Metric.FC, None, ScoreStatus.FAILED, outcome.raw, details | {"error": "no statements"})
    return MetricResult(Metric.FC, fc, ScoreStatus.OK, outcome.raw, details)


def _judge_values(generation: Generation) -> dict[str, object]:
    return {
        "question": generation.question.text,
        "ground_truth": generation.question.ground_truth,
        "answer": generation.text,
    }


def judge_metrics(judge: JudgeContext, generation: Generation, *, ass: float, fc_weight: float) -> list[MetricResult]:
    """FC, AC, Acc, Cm and LAV of one generation by one evaluator."""
    fc = factual_correctness(judge, generation)
    if fc.status == ScoreStatus.OK and fc.value is not None:
        ac = MetricResult(
            Metric.AC, answer_correctness(ass, fc.value, fc_weight), ScoreStatus.OK, "", {"ass": ass, "fc": fc.value}
        )
    else:
        ac = MetricResult(Metric.AC, None, fc.status, "", {"error": "FC could not be scored"})
    ac.details["fc_weight"] = fc_weight
    values = _judge_values(generation)
    acc_outcome = judge.call(SCORE_ACCURACY, parse_scale, values)
    cm_outcome = judge.call(SCORE_COMPLETENESS, parse_scale, values)
    lav_outcome = judge.call(VALIDATE_ANSWER, parse_lav, values)
    lav_value = None if lav_outcome.value is None else (1.0 if lav_outcome.value else 0.0)
    return [
        fc,
        ac,
        _from_outcome(Metric.ACC, acc_outcome, acc_outcome.value),
        _from_outcome(Metric.CM, cm_outcome, cm_outcome.value),
        _from_outcome(Metric.LAV, lav_outcome, lav_value),
    ]


def failed_metrics(error: str) -> list[MetricResult]:
    return [MetricResult(m, None, ScoreStatus.FAILED, "", {"error": error}) for m in JUDGE_METRICS]


@transaction.atomic
def scores_store(*, generation: Generation, evaluator: ModelEndpoint, results: list[MetricResult]) -> int:
    """Write one evaluator's metrics of one generation together (LAV last marks the unit complete)."""
    created = GenerationScore.objects.bulk_create(
        [
            GenerationScore(
                generation=generation,
                scorer=evaluator.name,
                evaluator=evaluator,
                metric=r.metric,
                value=r.value,
                status=r.status,
                raw_output=r.raw,
                details=r.details,
                metric_version=AC_VERSION if r.metric == Metric.AC else "judge@1",
            )
            for r in results
        ],
        ignore_conflicts=True,
    )
    return len(created)


def generation_score(
    *, generation: Generation, judge: JudgeContext, encoder: Encoder, fc_weight: float
) -> list[MetricResult]:
    """Score a generation with one evaluator; idempotent: an evaluator's complete set is never redone."""
    if GenerationScore.objects.filter(generation=generation, scorer=judge.evaluator.name, metric=Metric.LAV).exists():
        return []
    ass = ass_record(generation=generation, encoder=encoder)
    try:
        results = judge_metrics(judge, generation, ass=float(ass.value or 0.0), fc_weight=fc_weight)
    except ProviderError as exc:
        results = failed_metrics(f"provider error: {exc}")
    except TransientProviderError as exc:
        results = failed_metrics(f"provider kept failing after retries: {exc}")
    scores_store(generation=generation, evaluator=judge.evaluator, results=results)
    return results
