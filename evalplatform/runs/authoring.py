"""CDK-E's first two steps with a generator model: fabricate divergent contexts from real texts, and write
draft questions answerable only from the divergent facts. What the generator returns is parsed strictly
(one repair); an unparseable output creates nothing and is reported with its raw text."""

from dataclasses import dataclass, field

from django.db import transaction
from django.db.models import Max

from evalplatform.corpus.models import Alteration, Context, Dataset, Question
from evalplatform.llm.judges import judge_call, parse_fabrication, parse_questions
from evalplatform.llm.prompts import FABRICATE_CONTEXT, GENERATE_QUESTIONS, format_alterations
from evalplatform.llm.types import Mode
from evalplatform.runs.clients import client_for
from evalplatform.runs.models import ModelEndpoint
from scoring.cdke_services import constraint_for

# 5: alterations asked per context; the DKD contexts carry several changed facts per article (paper C, §3.1).
DEFAULT_ALTERATIONS = 5
# 20: questions per context in "Context Is King" (section 3.2).
DEFAULT_QUESTIONS = 20


@dataclass
class AuthoringReport:
    created: int = 0
    unparseable: list[tuple[str, str]] = field(default_factory=list)  # (context key, raw output)


def _mode(endpoint: ModelEndpoint) -> Mode:
    return "chat" if endpoint.mode == ModelEndpoint.Mode.CHAT else "completion"


def contexts_fabricate(
    *,
    source: Dataset,
    target_name: str,
    generator: ModelEndpoint,
    n_alterations: int = DEFAULT_ALTERATIONS,
    limit: int | None = None,
) -> tuple[Dataset, AuthoringReport]:
    """Make a new dkd dataset whose contexts are divergent rewrites of ``source``'s texts: each keeps the
    real text as ``source_text`` and the generator's list of alterations."""
    client = client_for(generator)
    report = AuthoringReport()
    target, _ = Dataset.objects.get_or_create(
        name=target_name,
        defaults={
            "kind": Dataset.Kind.DKD,
            "source": f"fabricated from {source.name} by {generator.name}",
            "project": source.project,
        },
    )
    done = set(target.contexts.values_list("key", flat=True))
    contexts = source.contexts.order_by("position", "pk").exclude(key__in=done)
    for context in contexts[:limit] if limit else contexts:
        real = context.source_text or context.text
        outcome = judge_call(
            client,
            FABRICATE_CONTEXT,
            parse_fabrication,
            model=generator.model_id,
            values={"source_text": real, "n_alterations": n_alterations},
            mode=_mode(generator),
            constrain=constraint_for(generator),
            temperature=0.7,
            seed=0,
        )
        if outcome.value is None:
            report.unparseable.append((context.key, outcome.raw))
            continue
        with transaction.atomic():
            position = (target.contexts.aggregate(m=Max("position"))["m"] or -1) + 1
            new = Context.objects.create(
                dataset=target,
                key=context.key,
                position=position,
                topic=context.topic,
                text=outcome.value.divergent_text,
                source_text=real,
            )
            Alteration.objects.bulk_create(
                [
                    Alteration(context=new, position=i, field=a.kind, original=a.original, divergent=a.divergent)
                    for i, a in enumerate(outcome.value.alterations)
                ]
            )
        report.created += 1
    return target, report


def questions_generate(
    *, dataset: Dataset, generator: ModelEndpoint, per_context: int = DEFAULT_QUESTIONS, limit: int | None = None
) -> AuthoringReport:
    """Add draft questions (status draft, for the annotators to validate) to contexts that have none."""
    client = client_for(generator)
    report = AuthoringReport()
    contexts = dataset.contexts.filter(questions__isnull=True).order_by("position", "pk")
    for context in contexts[:limit] if limit else contexts:
        alterations = [(a.original, a.divergent) for a in context.alterations.all()]
        outcome = judge_call(
            client,
            GENERATE_QUESTIONS,
            parse_questions,
            model=generator.model_id,
            values={
                "divergent_text": context.text,
                "alterations": format_alterations(alterations) or "(not recorded)",
                "n_questions": per_context,
            },
            mode=_mode(generator),
            constrain=constraint_for(generator),
            temperature=0.7,
            seed=0,
        )
        if outcome.value is None:
            report.unparseable.append((context.key, outcome.raw))
            continue
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
                for i, q in enumerate(outcome.value[:per_context])
            ],
            ignore_conflicts=True,
        )
        report.created += min(per_context, len(outcome.value))
    return report
