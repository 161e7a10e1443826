"""CDK-E step 2: a generator model writes draft questions answerable only from a context's divergent facts
(paper C, 3.2), for two annotators to validate. What the generator returns is parsed strictly and each draft
checked (``scoring.cdke.checks``: real text, a ground truth that carries a divergent fact, nothing echoed from
the prompt); a batch with a bad draft is repaired once, then its good drafts are kept and each bad one is
refused: kept as a GeneratorRefusal with its reasons for review, never as data. Asked for N, a context gets N
questions, or the report counts those refused and those the generator never wrote."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import asdict

from django.contrib.auth.models import User
from django.db import transaction

from evalplatform.audit.services import audit_record
from evalplatform.corpus.models import Dataset, Question
from evalplatform.llm.errors import UnparseableOutput
from evalplatform.runs.clients import client_for
from evalplatform.runs.models import ModelEndpoint
from scoring.cdke.checks import question_problems, repeated_questions
from scoring.cdke.fabricate import AuthoringReport, generator_call, refusal_record
from scoring.cdke.prompts import GENERATE_QUESTIONS, format_alterations
from scoring.cdke.verdicts import DraftQuestion, parse_questions
from scoring.models import GeneratorRefusal

# 20: questions per context in "Context Is King" (paper C, 3.2).
DEFAULT_QUESTIONS = 20


def questions_generate(
    *,
    dataset: Dataset,
    generator: ModelEndpoint,
    per_context: int = DEFAULT_QUESTIONS,
    limit: int | None = None,
    actor: User | None = None,
) -> AuthoringReport:
    """Add draft questions (status draft, for the annotators to validate) to contexts that have none."""
    client = client_for(generator)
    report = AuthoringReport()
    contexts = dataset.contexts.filter(questions__isnull=True).order_by("position", "pk")
    for context in contexts[:limit] if limit else contexts:
        alterations = [(a.original, a.divergent) for a in context.alterations.all()]
        divergent_values = [divergent for _, divergent in alterations]
        values: dict[str, object] = {
            "divergent_text": context.text,
            "alterations": format_alterations(alterations) or "(not recorded)",
            "n_questions": per_context,
        }
        outcome = generator_call(client, generator, GENERATE_QUESTIONS, questions_checked(divergent_values), values)
        drafts = list(outcome.value) if outcome.value is not None else _lenient(outcome.raw)
        if drafts is None:  # not even the JSON shape: the whole output is refused
            report.unparseable.append((context.key, outcome.raw))
            _refuse(dataset, context.key, generator, outcome.raw, [outcome.error or "unparseable"])
            continue
        kept, refused = _sort(drafts[:per_context], divergent_values)
        for draft, problems in refused:
            _refuse(dataset, context.key, generator, json.dumps(asdict(draft), ensure_ascii=False), problems)
        report.refused += len(refused)
        report.short += max(0, per_context - len(drafts))
        with transaction.atomic():
            Question.objects.bulk_create(
                [
                    Question(
                        dataset=dataset,
                        context=context,
                        key=f"{context.key}-g{i + 1:02d}",
                        position=i,
                        text=q.question,
                        ground_truth=q.ground_truth,
                        metadata={"generated_by": generator.name, "prompt": GENERATE_QUESTIONS.version_tag},
                    )
                    for i, q in enumerate(kept)
                ],
                ignore_conflicts=True,
            )
            audit_record(
                actor=actor,
                action="questions.generate",
                obj=context,
                payload={
                    "context": context.key,
                    "generator": generator.name,
                    "asked": per_context,
                    "questions": len(kept),
                    "refused": len(refused),
                },
                dataset=dataset,
            )
        report.created += len(kept)
    return report


def _problems(drafts: list[DraftQuestion], divergent_values: list[str]) -> list[list[str]]:
    repeats = set(repeated_questions(drafts))
    return [
        question_problems(d, divergent_values, GENERATE_QUESTIONS.text)
        + (["it repeats an earlier question"] if i in repeats else [])
        for i, d in enumerate(drafts)
    ]


def questions_checked(divergent_values: list[str]) -> Callable[[str], tuple[DraftQuestion, ...]]:
    """The questions parser for one context: a batch with a question that is not real text, or whose ground
    truth carries no divergent fact, is unparseable (so that it is repaired once as a whole)."""

    def parse(raw: str) -> tuple[DraftQuestion, ...]:
        drafts = parse_questions(raw)
        problems = [p for found in _problems(list(drafts), divergent_values) for p in found]
        if problems:
            raise UnparseableOutput("; ".join(problems), raw=raw)
        return drafts

    return parse


def _lenient(raw: str) -> list[DraftQuestion] | None:
    """After its repair failed too: the drafts of the last output, good and bad, when it has the JSON shape."""
    try:
        return list(parse_questions(raw))
    except UnparseableOutput:
        return None


def _sort(
    drafts: list[DraftQuestion], divergent_values: list[str]
) -> tuple[list[DraftQuestion], list[tuple[DraftQuestion, list[str]]]]:
    kept, refused = [], []
    for draft, problems in zip(drafts, _problems(drafts, divergent_values), strict=True):
        if problems:
            refused.append((draft, problems))
        else:
            kept.append(draft)
    return kept, refused


def _refuse(dataset: Dataset, context_key: str, generator: ModelEndpoint, raw: str, problems: list[str]) -> None:
    refusal_record(
        dataset=dataset,
        context_key=context_key,
        step=GeneratorRefusal.Step.QUESTIONS,
        generator=generator,
        template=GENERATE_QUESTIONS,
        raw=raw,
        problems=problems,
    )
