"""CDK-E step 1: a generator model rewrites real texts into divergent contexts (paper C, 3.1). What the
generator returns is parsed strictly and checked against what it claims (``scoring.cdke.checks``): a context
that does not really diverge, or an alteration the texts do not bear out, is repaired once, then refused: it
creates nothing, and its raw output and the reasons are kept as a GeneratorRefusal for review."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TypeVar

from django.contrib.auth.models import User
from django.db import transaction
from django.db.models import Max

from evalplatform.audit.services import audit_record
from evalplatform.corpus.models import Alteration, Context, Dataset
from evalplatform.corpus.services import NAME_MAX, check_slug
from evalplatform.llm.client import LLMClient
from evalplatform.llm.errors import UnparseableOutput
from evalplatform.llm.prompts.base import PromptTemplate
from evalplatform.llm.structured import StructuredOutcome, structured_call
from evalplatform.runs.clients import client_for, constraint_for, mode_for
from evalplatform.runs.models import ModelEndpoint
from scoring.cdke.checks import fabrication_problems
from scoring.cdke.prompts import FABRICATE_CONTEXT
from scoring.cdke.verdicts import Fabrication, parse_fabrication
from scoring.models import GeneratorRefusal

# 5: alterations asked per context; the DKD contexts carry several changed facts per article (paper C, 3.1).
DEFAULT_ALTERATIONS = 5
# 0.7: the generator's temperature, some variety in what it rewrites (our choice; paper C does not state one).
GENERATOR_TEMPERATURE = 0.7
T = TypeVar("T")


@dataclass
class AuthoringReport:
    """What a generator step made: how many rows; each output refused whole, with its context and raw text;
    how many single questions were refused; and how many fewer questions than asked the generator returned."""

    created: int = 0
    unparseable: list[tuple[str, str]] = field(default_factory=list)  # (context key, raw output)
    refused: int = 0
    short: int = 0


def refusal_record(
    *,
    dataset: Dataset,
    context_key: str,
    step: str,
    generator: ModelEndpoint,
    template: PromptTemplate,
    raw: str,
    problems: list[str],
) -> GeneratorRefusal:
    """Keep a refused artefact for review (never as data)."""
    return GeneratorRefusal.objects.create(
        dataset=dataset,
        context_key=context_key,
        step=step,
        generator=generator.name,
        prompt_version=template.version_tag,
        raw_output=raw,
        problems=problems,
    )


def generator_call(
    client: LLMClient,
    generator: ModelEndpoint,
    template: PromptTemplate,
    parser: Callable[[str], T],
    values: dict[str, object],
) -> StructuredOutcome[T]:
    """One call of the generator model at the generator's temperature, parsed strictly (one repair)."""
    return structured_call(
        client,
        template,
        parser,
        model=generator.model_id,
        values=values,
        mode=mode_for(generator),
        constrain=constraint_for(generator),
        temperature=GENERATOR_TEMPERATURE,
        seed=0,
    )


def fabrication_checked(real_text: str) -> Callable[[str], Fabrication]:
    """The fabrication parser for one real text: an output that does not bear out its claims is unparseable."""

    def parse(raw: str) -> Fabrication:
        fabrication = parse_fabrication(raw)
        problems = fabrication_problems(real_text, fabrication, FABRICATE_CONTEXT.text)
        if problems:
            raise UnparseableOutput("; ".join(problems), raw=raw)
        return fabrication

    return parse


def contexts_fabricate(
    *,
    source: Dataset,
    target_name: str,
    generator: ModelEndpoint,
    n_alterations: int = DEFAULT_ALTERATIONS,
    limit: int | None = None,
    actor: User | None = None,
) -> tuple[Dataset, AuthoringReport]:
    """Make (or complete) a dkd dataset whose contexts are divergent rewrites of ``source``'s texts: each keeps
    the real text as ``source_text`` and the generator's list of alterations. Contexts already fabricated are
    skipped, so a second call continues where the first stopped (in the name's latest version). The new
    dataset's name must be a slug, as an imported one's (``DatasetImportError`` otherwise)."""
    check_slug(target_name, what="dataset name", source="--into", limit=NAME_MAX)
    client = client_for(generator)
    report = AuthoringReport()
    target = Dataset.objects.filter(name=target_name).order_by("-version").first()  # continue its latest version
    if target is None:
        target = Dataset.objects.create(
            name=target_name,
            kind=Dataset.Kind.DKD,
            source=f"fabricated from {source.name} by {generator.name}",
            project=source.project,
            created_by=actor,
        )
    done = set(target.contexts.values_list("key", flat=True))
    contexts = source.contexts.order_by("position", "pk").exclude(key__in=done)
    for context in contexts[:limit] if limit else contexts:
        real = context.source_text or context.text
        outcome = generator_call(
            client,
            generator,
            FABRICATE_CONTEXT,
            fabrication_checked(real),
            {"source_text": real, "n_alterations": n_alterations},
        )
        if outcome.value is None:
            report.unparseable.append((context.key, outcome.raw))
            problems = [outcome.error or "unparseable"]
            refusal_record(
                dataset=target,
                context_key=context.key,
                step=GeneratorRefusal.Step.FABRICATE,
                generator=generator,
                template=FABRICATE_CONTEXT,
                raw=outcome.raw,
                problems=problems,
            )
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
            audit_record(
                actor=actor,
                action="context.fabricate",
                obj=new,
                payload={"from": source.name, "context": context.key, "generator": generator.name},
                dataset=target,
            )
        report.created += 1
    return target, report
