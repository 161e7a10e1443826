"""CDK-E step 2: a generator model writes draft questions answerable only from a context's divergent facts
(paper C, 3.2), for two annotators to validate. What the generator returns is parsed strictly (one repair);
an unparseable output creates nothing and is reported with its raw text."""

from __future__ import annotations

from django.contrib.auth.models import User
from django.db import transaction

from evalplatform.audit.services import audit_record
from evalplatform.corpus.models import Dataset, Question
from evalplatform.runs.clients import client_for
from evalplatform.runs.models import ModelEndpoint
from scoring.cdke.fabricate import AuthoringReport, generator_call
from scoring.cdke.prompts import GENERATE_QUESTIONS, format_alterations
from scoring.cdke.verdicts import parse_questions

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
        values: dict[str, object] = {
            "divergent_text": context.text,
            "alterations": format_alterations(alterations) or "(not recorded)",
            "n_questions": per_context,
        }
        outcome = generator_call(client, generator, GENERATE_QUESTIONS, parse_questions, values)
        if outcome.value is None:
            report.unparseable.append((context.key, outcome.raw))
            continue
        drafts = outcome.value[:per_context]
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
                    for i, q in enumerate(drafts)
                ],
                ignore_conflicts=True,
            )
            audit_record(
                actor=actor,
                action="questions.generate",
                obj=context,
                payload={"context": context.key, "generator": generator.name, "questions": len(drafts)},
                dataset=dataset,
            )
        report.created += len(drafts)
    return report
