"""CDK-E step 4: score one answer, by embedding (ASS) and with each evaluator (FC, AC, Acc, Cm, LAV; paper C,
3.4). Every score is written under its unique constraint, so a retried task never duplicates one; an
unparseable judge output (after one repair) is stored as such with its raw text, never as 0."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from django.db import transaction

from evalplatform.hashing import text_hash
from evalplatform.llm.client import LLMClient
from evalplatform.llm.errors import ProviderError, TransientProviderError, UnparseableOutput
from evalplatform.llm.prompts.base import PromptTemplate
from evalplatform.llm.structured import StructuredOutcome, structured_call
from evalplatform.runs.clients import constraint_for, mode_for
from evalplatform.runs.models import Generation, ModelEndpoint
from scoring.cdke.answer import context_shown
from scoring.cdke.judge_prompts import JudgePrompts
from scoring.cdke.metrics import answer_correctness, clip_unit, fc_from_verdict
from scoring.cdke.verdicts import Classification, parse_classification, parse_error_type, parse_statements
from scoring.embeddings import Encoder
from scoring.models import ErrorTypeJudgement, GenerationScore, ScoreStatus, StatementSet

ASS_VERSION = "ass@1"
AC_VERSION = "ac@1"
JUDGE_METRICS = ("fc", "ac", "acc", "cm", "lav")
# What a closed-book answer's judge is told about its context.
NO_CONTEXT = "(none: the model answered without a context)"
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
    prompts: JudgePrompts
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
    version = judge.prompts.extract.version_tag
    found = StatementSet.objects.filter(evaluator=judge.evaluator, text_hash=digest, prompt_version=version).first()
    if found is not None:
        return found
    outcome = judge.call(judge.prompts.extract, parse_statements, {"question": question_text, "text": text})
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


def classification_checked(answer: list[str], truth: list[str]) -> Callable[[str], Classification]:
    """The classification parser for one answer: a verdict that invents, repeats or moves a statement
    (``fc_from_verdict``) is unparseable, so that it is repaired once and then counted, never scored."""

    def parse(raw: str) -> Classification:
        verdict = parse_classification(raw)
        try:
            fc_from_verdict(answer, truth, {"TP": verdict.tp, "FP": verdict.fp, "FN": verdict.fn})
        except ValueError as exc:
            raise UnparseableOutput(str(exc), raw=raw) from exc
        return verdict

    return parse


def factual_correctness(judge: JudgeContext, generation: Generation) -> MetricResult:
    """FC from statements: TP / (TP + 0.5 (FP + FN)), the judge's verdict checked against the statements."""
    question = generation.question
    truth = statements_for(judge, question_text=question.text, text=question.ground_truth, question_id=question.pk)
    answer = statements_for(judge, question_text=question.text, text=generation.text)
    for side, found in (("ground truth", truth), ("answer", answer)):
        if found.status != ScoreStatus.OK:
            return MetricResult(
                Metric.FC, None, ScoreStatus.UNPARSEABLE, found.raw_output, {"error": f"{side} statements unparseable"}
            )
    outcome = judge.call(
        judge.prompts.classify,
        classification_checked(answer.statements, truth.statements),
        {
            "question": question.text,
            "answer_statements": json.dumps(answer.statements, ensure_ascii=False),
            "truth_statements": json.dumps(truth.statements, ensure_ascii=False),
        },
    )
    if outcome.status != "ok" or outcome.value is None:
        return _from_outcome(Metric.FC, outcome, None)
    c = outcome.value
    fc = fc_from_verdict(answer.statements, truth.statements, {"TP": c.tp, "FP": c.fp, "FN": c.fn})
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


def judge_values(generation: Generation, *, with_context: bool) -> dict[str, object]:
    """What the evaluator is shown: the question, the ground truth, the answer and, for the prompt sets that
    show it, the context the candidate was shown (none for a closed-book answer)."""
    values: dict[str, object] = {
        "question": generation.question.text,
        "ground_truth": generation.question.ground_truth,
        "answer": generation.text,
    }
    if with_context:
        values["context"] = context_shown(generation.question, generation.condition) or NO_CONTEXT
    return values


def not_chosen(metric: str) -> MetricResult:
    """A metric the run did not ask for: stored as skipped (counted apart, never averaged), so that the LAV row
    still marks the evaluator's set of an answer as finished."""
    return MetricResult(metric, None, ScoreStatus.SKIPPED, "", {"reason": "not chosen for this run"})


def _accuracy_and_completeness(
    judge: JudgeContext, values: dict[str, object], metrics: Sequence[str]
) -> tuple[MetricResult, MetricResult]:
    prompts = judge.prompts
    if "acc" not in metrics and "cm" not in metrics:
        return not_chosen(Metric.ACC), not_chosen(Metric.CM)
    if prompts.accuracy_and_completeness is not None and prompts.parse_accuracy_and_completeness is not None:
        both = judge.call(prompts.accuracy_and_completeness, prompts.parse_accuracy_and_completeness, values)
        acc, cm = both.value if both.value is not None else (None, None)
        return (
            _from_outcome(Metric.ACC, both, acc) if "acc" in metrics else not_chosen(Metric.ACC),
            _from_outcome(Metric.CM, both, cm) if "cm" in metrics else not_chosen(Metric.CM),
        )
    assert prompts.accuracy is not None and prompts.completeness is not None and prompts.parse_scale is not None
    results = []
    for metric, template in ((Metric.ACC, prompts.accuracy), (Metric.CM, prompts.completeness)):
        if metric in metrics:
            outcome = judge.call(template, prompts.parse_scale, values)
            results.append(_from_outcome(metric, outcome, outcome.value))
        else:
            results.append(not_chosen(metric))
    return results[0], results[1]


def judge_metrics(
    judge: JudgeContext,
    generation: Generation,
    *,
    ass: float,
    fc_weight: float,
    metrics: Sequence[str] = JUDGE_METRICS,
) -> list[MetricResult]:
    """FC, AC, Acc, Cm and LAV of one generation by one evaluator, with the run's prompt set; the metrics the run
    did not choose are skipped, without a call (AC needs FC: the spec adds FC when AC is chosen)."""
    if "fc" in metrics or "ac" in metrics:
        fc = factual_correctness(judge, generation)
        if fc.status == ScoreStatus.OK and fc.value is not None:
            ac = MetricResult(
                Metric.AC,
                answer_correctness(ass, fc.value, fc_weight),
                ScoreStatus.OK,
                "",
                {"ass": ass, "fc": fc.value},
            )
        else:
            ac = MetricResult(Metric.AC, None, fc.status, "", {"error": "FC could not be scored"})
        ac.details["fc_weight"] = fc_weight
        if "ac" not in metrics:
            ac = not_chosen(Metric.AC)
        if "fc" not in metrics:
            fc = not_chosen(Metric.FC)
    else:
        fc, ac = not_chosen(Metric.FC), not_chosen(Metric.AC)
    values = judge_values(generation, with_context=judge.prompts.with_context)
    acc, cm = _accuracy_and_completeness(judge, values, metrics)
    if "lav" in metrics:
        lav_outcome = judge.call(judge.prompts.validate, judge.prompts.parse_validate, values)
        lav_value = None if lav_outcome.value is None else (1.0 if lav_outcome.value else 0.0)
        lav = _from_outcome(Metric.LAV, lav_outcome, lav_value)
    else:
        lav = not_chosen(Metric.LAV)
    return [fc, ac, acc, cm, lav]


@dataclass(frozen=True)
class ErrorTypeResult:
    label: str
    status: str
    raw: str
    prompt_version: str


def error_type(judge: JudgeContext, generation: Generation) -> ErrorTypeResult | None:
    """The evaluator's error type of an answer its LAV found invalid (paper C's error analysis); None when the
    run's prompt set asks for none."""
    template = judge.prompts.error_type
    if template is None:
        return None
    outcome = judge.call(template, parse_error_type, judge_values(generation, with_context=True))
    status = ScoreStatus.OK if outcome.status == "ok" else ScoreStatus.UNPARSEABLE
    return ErrorTypeResult(outcome.value or "", status, outcome.raw, template.version_tag)


def failed_metrics(error: str) -> list[MetricResult]:
    return [MetricResult(m, None, ScoreStatus.FAILED, "", {"error": error}) for m in JUDGE_METRICS]


@transaction.atomic
def scores_store(
    *,
    generation: Generation,
    evaluator: ModelEndpoint,
    results: list[MetricResult],
    prompt_set: str,
    error: ErrorTypeResult | None = None,
) -> int:
    """Write one evaluator's metrics of one generation together, with the error type of an invalid answer (LAV,
    written last, marks the unit complete)."""
    if error is not None:
        ErrorTypeJudgement.objects.bulk_create(
            [
                ErrorTypeJudgement(
                    generation=generation,
                    scorer=evaluator.name,
                    evaluator=evaluator,
                    label=error.label,
                    status=error.status,
                    raw_output=error.raw,
                    prompt_version=error.prompt_version,
                )
            ],
            ignore_conflicts=True,
        )
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
                metric_version=AC_VERSION if r.metric == Metric.AC else f"judge@{prompt_set}",
            )
            for r in results
        ],
        ignore_conflicts=True,
    )
    return len(created)


def generation_score(
    *,
    generation: Generation,
    judge: JudgeContext,
    encoder: Encoder,
    fc_weight: float,
    metrics: Sequence[str] = JUDGE_METRICS,
) -> list[MetricResult]:
    """Score a generation with one evaluator; idempotent: an evaluator's complete set is never redone."""
    if GenerationScore.objects.filter(generation=generation, scorer=judge.evaluator.name, metric=Metric.LAV).exists():
        return []
    ass = ass_record(generation=generation, encoder=encoder)
    error: ErrorTypeResult | None = None
    try:
        results = judge_metrics(judge, generation, ass=float(ass.value or 0.0), fc_weight=fc_weight, metrics=metrics)
        if any(r.metric == Metric.LAV and r.value == 0.0 for r in results):
            error = error_type(judge, generation)
    except ProviderError as exc:
        results = failed_metrics(f"provider error: {exc}")
    except TransientProviderError as exc:
        results = failed_metrics(f"provider kept failing after retries: {exc}")
    scores_store(
        generation=generation,
        evaluator=judge.evaluator,
        results=results,
        prompt_set=judge.prompts.version,
        error=error,
    )
    return results
