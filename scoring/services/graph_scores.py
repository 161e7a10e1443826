"""GoldSim, CtxSim and CUS of generations: the three graphs of each, S3KG per variant, one transaction each.

For a generation the answer graph comes from its answer, the gold graph from the question's ground truth
and the context graph from the context the model was shown (the real source text under the ``real``
condition). With the ``imported`` extractor the three graphs are the ones imported with the question
(``kg_llm``, ``kg_gold``, ``kg_context``), and the answer graph is used only for the imported answer it was
extracted from. Every variant of a generation is written in one transaction, under the one-per-variant
constraint, so a retried task neither duplicates nor half-writes; a generation that cannot be scored gets
rows with status ``skipped`` (an empty graph) or ``failed`` (no graph), counted and never dropped.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from django.db import transaction

from evalplatform.runs.models import Generation, ModelEndpoint
from evalplatform.runs.services import run_count
from scoring.cus import cus_item
from scoring.embeddings import Encoder, get_encoder
from scoring.kg.extractors import TripletExtractor
from scoring.kg.types import Triplet
from scoring.kg_spec import KGSpec
from scoring.models import GraphScore, KnowledgeGraph, ScoreStatus
from scoring.s3kg import VARIANTS, S3KGResult, s3kg_many
from scoring.services.graphs import (
    graph_get_or_extract,
    graph_import,
    graph_raw_triplets,
    graph_store,
    graph_triplets,
    llm_extractor_for,
    shared_extractor,
)

# The graph stage's registered name (scoring.graph_stage).
GRAPH_STAGE = "graphs"


class GraphUnavailable(Exception):
    """A generation's graphs cannot be had (an imported graph missing, an endpoint unknown)."""


@dataclass(frozen=True)
class GenerationGraphs:
    answer: KnowledgeGraph
    gold: KnowledgeGraph
    context: KnowledgeGraph


def _context_text(generation: Generation) -> str:
    context = generation.question.context
    return context.source_text if generation.condition == "real" and context.source_text else context.text


def generation_graphs(*, generation: Generation, kg: KGSpec, use_cache: bool = True) -> GenerationGraphs:
    """The answer, gold and context graphs of a generation, extracted or imported once and reused."""
    question = generation.question
    if kg.extractor_kind == "imported":
        meta = question.metadata or {}
        for field in ("kg_llm", "kg_gold", "kg_context"):
            if not isinstance(meta.get(field), list):
                raise GraphUnavailable(f"question {question.key} has no imported {field}")
        if generation.text.strip() != str(meta.get("llm_answer", "")).strip():
            raise GraphUnavailable("the imported answer graph belongs to the imported answer, not this one")
        return GenerationGraphs(
            answer=graph_import(text=generation.text, triplets=meta["kg_llm"]),
            gold=graph_import(text=question.ground_truth, triplets=meta["kg_gold"]),
            context=graph_import(text=_context_text(generation), triplets=meta["kg_context"]),
        )
    if kg.extractor_kind == "llm":
        endpoint = ModelEndpoint.objects.filter(name=kg.endpoint_name).first()
        if endpoint is None:
            raise GraphUnavailable(f"no model endpoint named '{kg.endpoint_name}' for the llm extractor")
        extractor: TripletExtractor = llm_extractor_for(endpoint, use_cache=use_cache)
        name = f"llm:{endpoint.name}"
    else:
        extractor = shared_extractor(kg.extractor_kind)
        name = extractor.name
    return GenerationGraphs(
        answer=graph_get_or_extract(text=generation.text, extractor=extractor, name=name),
        gold=graph_get_or_extract(text=question.ground_truth, extractor=extractor, name=name),
        context=graph_get_or_extract(text=_context_text(generation), extractor=extractor, name=name),
    )


@dataclass
class _Item:
    generation: Generation
    graphs: GenerationGraphs | None
    reason: str = ""
    status: str = ScoreStatus.OK


def _triplets(graph: KnowledgeGraph, variant: str) -> list[Triplet]:
    return graph_raw_triplets(graph) if variant == "s3kg_reference" else graph_triplets(graph)


def _empty_reason(graphs: GenerationGraphs) -> str:
    empty = [
        role
        for role, graph in (("answer", graphs.answer), ("gold", graphs.gold), ("context", graphs.context))
        if not graph_triplets(graph)
    ]
    return f"empty {', '.join(empty)} graph" if empty else ""


def _part(result: S3KGResult) -> dict[str, float]:
    return {"score": result.score, "structural": result.structural, "semantic": result.semantic}


def graph_scores_compute(
    *, generations: Sequence[Generation], kg: KGSpec, encoder: Encoder | None = None, use_cache: bool = True
) -> int:
    """Score every listed generation that lacks its GraphScores; returns how many generations were written.

    All comparisons of all generations are embedded in one batched pass per variant (each distinct string
    once), then each generation's rows are written in their own transaction. Items with an empty graph
    (answer, gold or context) are stored as skipped with the reason; items whose graphs cannot be had, as
    failed. Only answered generations are scored."""
    enc = encoder or get_encoder(kg.encoder)
    todo = _todo(generations, kg, enc)
    items: list[_Item] = []
    for generation in todo:
        try:
            graphs = generation_graphs(generation=generation, kg=kg, use_cache=use_cache)
        except GraphUnavailable as exc:
            items.append(_Item(generation, None, str(exc)[:200], ScoreStatus.FAILED))
            continue
        unparseable = [g for g in (graphs.answer, graphs.gold, graphs.context) if g.status != ScoreStatus.OK]
        if unparseable:
            items.append(_Item(generation, graphs, "a graph could not be extracted (unparseable)", ScoreStatus.FAILED))
            continue
        reason = _empty_reason(graphs)
        items.append(_Item(generation, graphs, reason, ScoreStatus.SKIPPED if reason else ScoreStatus.OK))
    scorable = [item for item in items if item.status == ScoreStatus.OK]
    results: dict[str, list[S3KGResult]] = {}
    for variant in kg.variants:
        pairs: list[tuple[Sequence[Triplet], Sequence[Triplet]]] = []
        for item in scorable:
            assert item.graphs is not None
            answer = _triplets(item.graphs.answer, variant)
            pairs.append((answer, _triplets(item.graphs.gold, variant)))
            pairs.append((answer, _triplets(item.graphs.context, variant)))
        results[variant] = s3kg_many(pairs, encoder=enc, variant=variant, alpha=kg.alpha)
    index = {id(item): i for i, item in enumerate(scorable)}
    for item in items:
        per_variant = {}
        if item.status == ScoreStatus.OK:
            i = index[id(item)]
            per_variant = {v: (results[v][2 * i], results[v][2 * i + 1]) for v in kg.variants}
        _write(item, kg, enc.name, per_variant)
    return len(items)


def _todo(generations: Sequence[Generation], kg: KGSpec, enc: Encoder) -> list[Generation]:
    ids = [g.pk for g in generations if g.status == Generation.Status.DONE]
    complete = set()
    if ids:
        counts: dict[int, int] = {}
        for generation_id in GraphScore.objects.filter(
            generation_id__in=ids, variant__in=kg.variants, encoder=enc.name, alpha=kg.alpha
        ).values_list("generation_id", flat=True):
            counts[generation_id] = counts.get(generation_id, 0) + 1
        complete = {g for g, n in counts.items() if n >= len(kg.variants)}
    return [g for g in generations if g.pk in ids and g.pk not in complete]


def _placeholder(text: str) -> GenerationGraphs:
    """A failed item with no graph still gets its rows, against an empty graph marked failed."""
    empty = graph_store(text=text, extractor="none", version="none@1", raw=[], status=ScoreStatus.FAILED)
    return GenerationGraphs(answer=empty, gold=empty, context=empty)


def _write(item: _Item, kg: KGSpec, encoder_name: str, results: dict[str, tuple[S3KGResult, S3KGResult]]) -> None:
    """The generation's rows for every variant, in one transaction; the writer of its first rows counts its
    graph unit (failed when its graphs could not be had). The cell's row is locked first, so that two workers
    writing the same generation count it once."""
    with transaction.atomic():
        list(Generation.objects.select_for_update().filter(pk=item.generation.pk).values_list("pk", flat=True))
        first = not GraphScore.objects.filter(generation=item.generation).exists()
        graphs = item.graphs or _placeholder(item.generation.text)
        rows = []
        for variant in kg.variants:
            row = GraphScore(
                generation=item.generation,
                variant=variant,
                variant_version=VARIANTS[variant].version,
                encoder=encoder_name,
                alpha=kg.alpha,
                answer_graph=graphs.answer,
                gold_graph=graphs.gold,
                context_graph=graphs.context,
                details={"extractor": kg.extractor},
            )
            if variant in results:
                gold, ctx = results[variant]
                row.goldsim, row.ctxsim, row.cus = gold.score, ctx.score, cus_item(gold.score, ctx.score)
                row.details.update(goldsim=_part(gold), ctxsim=_part(ctx))
            else:
                row.status, row.skipped_reason = item.status, item.reason
            rows.append(row)
        GraphScore.objects.bulk_create(rows, ignore_conflicts=True)
        if first:
            run_count(run_id=item.generation.run_id, stage=GRAPH_STAGE, failed=int(item.status == ScoreStatus.FAILED))


def graph_scores_mark_failed(*, generation: Generation, kg: KGSpec, reason: str, encoder_name: str) -> None:
    """Rows with status failed for every variant of a generation whose graphs could not be obtained."""
    _write(_Item(generation, None, reason[:200], ScoreStatus.FAILED), kg, encoder_name, {})
