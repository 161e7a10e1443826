"""CDK-E step 4: score one answer, by embedding (ASS) and with each evaluator (FC, AC, Acc, Cm, LAV; paper C,
3.4). Every score is written under its unique constraint, so a retried task never duplicates one; an
unparseable judge output (after one repair) is stored as such with its raw text, never as 0."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from django.db import transaction

from evalplatform.llm.client import LLMClient
from evalplatform.llm.errors import ProviderError, TransientProviderError, UnparseableOutput
from evalplatform.llm.prompts.base import PromptTemplate
from evalplatform.llm.structured import StructuredOutcome, structured_call
from evalplatform.runs.clients import constraint_for, mode_for
from evalplatform.runs.fields import stored_error
from evalplatform.runs.models import Generation, ModelEndpoint
from evalplatform.runs.services import run_count
from scoring.cdke.answer import context_shown
from scoring.cdke.judge_prompts import JudgePrompts
from scoring.cdke.metrics import fc_from_verdict
from scoring.cdke.similarity import AC_VERSION, ac_row, generation_scores, lock_generations
from scoring.cdke.statements import statements_for
from scoring.cdke.verdicts import Classification, parse_classification, parse_error_type
from scoring.models import ErrorTypeJudgement, GenerationScore, ScoreStatus

JUDGE_METRICS = ("fc", "ac", "acc", "cm", "lav")
# The judge stage's registered name (scoring.cdke.stages).
JUDGE_STAGE = "judge"
# What a closed-book answer's judge is told about its context.
NO_CONTEXT = "(none: the model answered without a context)"
# The evaluators' sampling: greedy (temperature 0) with a fixed seed, so that a judge asked twice answers the same
# wherever its server is deterministic (recorded in the run's fingerprint; a retest measures what is left).
JUDGE_TEMPERATURE = 0.0
JUDGE_SEED = 0
Metric = GenerationScore.Metric


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
            temperature=JUDGE_TEMPERATURE,
            seed=JUDGE_SEED,
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


def _scale(judge: JudgeContext, metric: str, values: dict[str, object]) -> tuple[MetricResult, ...]:
    prompts = judge.prompts
    template = prompts.accuracy if metric == Metric.ACC else prompts.completeness
    assert template is not None and prompts.parse_scale is not None
    outcome = judge.call(template, prompts.parse_scale, values)
    return (_from_outcome(metric, outcome, outcome.value),)


def _accuracy_and_completeness(judge: JudgeContext, values: dict[str, object]) -> tuple[MetricResult, ...]:
    """Acc and Cm asked in one call (the authors' published prompt)."""
    prompts = judge.prompts
    assert prompts.accuracy_and_completeness is not None and prompts.parse_accuracy_and_completeness is not None
    both = judge.call(prompts.accuracy_and_completeness, prompts.parse_accuracy_and_completeness, values)
    acc, cm = both.value if both.value is not None else (None, None)
    return _from_outcome(Metric.ACC, both, acc), _from_outcome(Metric.CM, both, cm)


def _lav(judge: JudgeContext, values: dict[str, object]) -> MetricResult:
    outcome = judge.call(judge.prompts.validate, judge.prompts.parse_validate, values)
    return _from_outcome(Metric.LAV, outcome, None if outcome.value is None else (1.0 if outcome.value else 0.0))


def _failed(metric: str, error: str) -> MetricResult:
    return MetricResult(metric, None, ScoreStatus.FAILED, "", {"error": error})


class ScoringInterrupted(Exception):
    """A call kept failing transiently: what was scored so far (``partial``, LAV never among it) is stored, the
    rest waits for the task's retry."""

    def __init__(self, cause: TransientProviderError, partial: list[MetricResult] | None = None):
        self.cause = cause
        self.partial = partial or []
        super().__init__(str(cause))


def judge_metrics(
    judge: JudgeContext,
    generation: Generation,
    *,
    have: Mapping[str, MetricResult] | None = None,
    last_attempt: bool = True,
    metrics: Sequence[str] = JUDGE_METRICS,
) -> list[MetricResult]:
    """FC, Acc, Cm and LAV of one generation by one evaluator, with the run's prompt set (AC follows from FC and
    ASS when both are stored: ``scoring.cdke.similarity.ac_row``); each metric on its
    own: one that fails (a permanent provider error, or a transient one on the task's last attempt) is failed
    alone, the others are scored. A metric the run did not choose (``metrics``) is skipped without a call (AC
    needs FC: the spec adds FC when AC is chosen). ``have`` holds the metrics stored before (not asked again).
    On a transient error before the last attempt, ``ScoringInterrupted`` carries what was scored so far (LAV,
    which completes the unit, is scored last)."""
    results: dict[str, MetricResult] = dict(have or {})
    for metric in (Metric.FC, Metric.ACC, Metric.CM, Metric.LAV):
        if metric not in metrics:
            results.setdefault(metric, not_chosen(metric))
    values = judge_values(generation, with_context=judge.prompts.with_context)

    def attempt(names: tuple[str, ...], score: Callable[[], tuple[MetricResult, ...]]) -> None:
        if all(m in results for m in names):
            return
        try:
            for result in score():
                results.setdefault(result.metric, result)
        except TransientProviderError as exc:
            if not last_attempt:
                raise ScoringInterrupted(exc) from exc
            for m in names:
                results.setdefault(m, _failed(m, f"provider kept failing after retries: {exc}"))
        except ProviderError as exc:
            for m in names:
                results.setdefault(m, _failed(m, f"provider error: {exc}"))

    try:
        attempt((Metric.FC,), lambda: (factual_correctness(judge, generation),))
        if judge.prompts.accuracy_and_completeness is not None:
            attempt((Metric.ACC, Metric.CM), lambda: _accuracy_and_completeness(judge, values))
        else:
            attempt((Metric.ACC,), lambda: _scale(judge, Metric.ACC, values))
            attempt((Metric.CM,), lambda: _scale(judge, Metric.CM, values))
        attempt((Metric.LAV,), lambda: (_lav(judge, values),))
    except ScoringInterrupted as exc:
        partial = [r for m, r in results.items() if m != Metric.LAV and m not in (have or {})]
        raise ScoringInterrupted(exc.cause, partial) from exc.cause
    return [results[m] for m in JUDGE_METRICS if m in results]


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


def _row(generation: Generation, evaluator: ModelEndpoint, r: MetricResult, prompt_set: str) -> GenerationScore:
    return GenerationScore(
        generation=generation,
        scorer=evaluator.name,
        evaluator=evaluator,
        metric=r.metric,
        value=r.value,
        status=r.status,
        raw_output=r.raw,
        details=r.details,
        metric_version=AC_VERSION if r.metric == Metric.AC else f"judge@{prompt_set}",
        ground_truth=generation.question.ground_truth,
    )


def scores_store(
    *,
    generation: Generation,
    evaluator: ModelEndpoint,
    results: list[MetricResult],
    prompt_set: str,
    fc_weight: float,
    error: ErrorTypeResult | None = None,
) -> bool:
    """Write one evaluator's metrics of one generation that are not stored yet, with the error type of an invalid
    answer and AC when FC and ASS are in, in one transaction holding the generation's lock. LAV, written last,
    completes the unit: the writer that stores it counts the unit (failed when any of its metrics failed) and no
    other. Returns whether this call completed the unit.

    Every writer of a unit holds the generation's lock, so the unit's rows read once under it say all the rest:
    what is stored already (not written again), whether another writer completed the unit (its LAV is there), the
    AC that the new FC completes and whether any metric failed; the new rows go in one INSERT (issue 15: a unit was
    ten or eleven statements, with a savepoint round its LAV and a second look for failures)."""
    with transaction.atomic():
        lock_generations([generation.pk])
        scores = generation_scores(generation.pk)
        mine = {s.metric: s for s in scores if s.scorer == evaluator.name}
        if Metric.LAV in mine:
            return False  # another worker completed this unit first
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
        new = [_row(generation, evaluator, r, prompt_set) for r in results if r.metric not in mine]
        ac = ac_row(generation_id=generation.pk, scorer=evaluator.name, fc_weight=fc_weight, scores=scores + new)
        if ac is not None:
            new.append(ac)
        GenerationScore.objects.bulk_create(new)
        if not any(row.metric == Metric.LAV for row in new):
            return False
        # An AC written now took FC's status: a failed AC is a failed FC, among the unit's rows already.
        unit_failed = any(row.status == ScoreStatus.FAILED for row in [*mine.values(), *new])
        run_count(run_id=generation.run_id, stage=JUDGE_STAGE, failed=int(unit_failed))
    return True


def generation_score(
    *,
    generation: Generation,
    judge: JudgeContext,
    fc_weight: float,
    last_attempt: bool = True,
    metrics: Sequence[str] = JUDGE_METRICS,
    unjudged: bool = False,
) -> list[MetricResult]:
    """Score a generation with one evaluator: the metrics it lacks, each on its own (a resumed or retried unit
    asks only for what is missing). Idempotent: a complete unit (its LAV stored) is never redone. ``unjudged``:
    the caller knows the unit has no rows (it has just answered the cell), so they are not read."""
    # The unit's rows, picked in Python (a query naming a metric may walk the (metric, status) index when
    # PostgreSQL's statistics are missing: scoring.cdke.similarity.generation_scores).
    stored = (
        [] if unjudged else list(GenerationScore.objects.filter(generation=generation, scorer=judge.evaluator.name))
    )
    if any(row.metric == Metric.LAV for row in stored):
        return []
    have = {
        row.metric: MetricResult(row.metric, row.value, row.status, row.raw_output, row.details)
        for row in stored
        if row.metric not in (Metric.ASS, Metric.AC)
    }
    try:
        results = judge_metrics(judge, generation, have=have, last_attempt=last_attempt, metrics=metrics)
    except ScoringInterrupted as exc:
        scores_store(
            generation=generation,
            evaluator=judge.evaluator,
            results=exc.partial,
            prompt_set=judge.prompts.version,
            fc_weight=fc_weight,
        )
        raise exc.cause from exc
    error: ErrorTypeResult | None = None
    lav = next(r for r in results if r.metric == Metric.LAV)
    if (
        lav.value == 0.0
        and not ErrorTypeJudgement.objects.filter(generation=generation, scorer=judge.evaluator.name).exists()
    ):
        try:
            error = error_type(judge, generation)
        except (ProviderError, TransientProviderError) as exc:
            error = ErrorTypeResult("", ScoreStatus.FAILED, stored_error(str(exc)), "")
    scores_store(
        generation=generation,
        evaluator=judge.evaluator,
        results=[r for r in results if r.metric not in have],
        prompt_set=judge.prompts.version,
        fc_weight=fc_weight,
        error=error,
    )
    return results
