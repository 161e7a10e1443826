"""Stored knowledge graphs: extract a text's graph once per extractor version, or import one given with the data.

A graph is keyed by (sha256 of the text, extractor name, extractor version) under a unique constraint,
so a text is never extracted twice and two workers racing on one text end with one graph. Each Triplet row
keeps the labels as extracted or imported (``raw_*``, which the ``s3kg_reference`` variant reads) beside
their normalised form (lower-cased, underscores as spaces, lemmatised: S3KG §3.1).

Imported graphs (extractor ``imported``) are keyed by the text and a hash of the triplets themselves, since
two files may bring two different graphs for the same text.
"""

from __future__ import annotations

import hashlib
import json
import threading
from collections.abc import Sequence
from typing import Any

from django.db import IntegrityError, transaction

from evalplatform.llm.types import ChatMessage, LLMRequest
from evalplatform.runs.clients import client_for
from evalplatform.runs.models import ModelEndpoint
from scoring.kg.extractors import TripletExtractor, get_extractor
from scoring.kg.llm_extractor import PROMPT_VERSION, LLMExtractor, TripletParseError
from scoring.kg.types import Triplet, normalise_label
from scoring.models import KnowledgeGraph, ScoreStatus
from scoring.models import Triplet as TripletRow

IMPORTED = "imported"
IMPORTED_VERSION = "imported@1"
# Longest answer the LLM extractor may write (a long context gives many triplets).
LLM_EXTRACT_MAX_TOKENS = 768

_extractors: dict[str, TripletExtractor] = {}
_extractors_lock = threading.Lock()


def text_hash(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _normalised(raw: Triplet) -> Triplet:
    return Triplet(normalise_label(raw.head), normalise_label(raw.relation), normalise_label(raw.tail))


def graph_store(
    *,
    text: str,
    extractor: str,
    version: str,
    raw: Sequence[Triplet],
    normalised: Sequence[Triplet] | None = None,
    status: str = ScoreStatus.OK,
    raw_output: str = "",
) -> KnowledgeGraph:
    """Write one graph and its triplets, or return the one already stored under the same key.

    ``raw`` are the triplets as extracted or imported, in order; ``normalised`` their normalised form
    (computed from ``raw`` when not given). Rows are kept as given: repeated triplets stay, because the
    authors' reference code embeds them too; ``graph_triplets`` deduplicates for the paper's variants."""
    key = {"text_hash": text_hash(text), "extractor": extractor, "extractor_version": version}
    existing = KnowledgeGraph.objects.filter(**key).first()
    if existing is not None:
        return existing
    norm = list(normalised) if normalised is not None else [_normalised(t) for t in raw]
    if len(norm) != len(raw):
        raise ValueError("raw and normalised triplets differ in number")
    try:
        with transaction.atomic():
            graph = KnowledgeGraph.objects.create(**key, text=text, status=status, raw_output=raw_output)
            TripletRow.objects.bulk_create(
                [
                    TripletRow(
                        graph=graph,
                        position=i,
                        head=n.head[:500],
                        relation=n.relation[:500],
                        tail=n.tail[:500],
                        raw_head=r.head[:500],
                        raw_relation=r.relation[:500],
                        raw_tail=r.tail[:500],
                    )
                    for i, (n, r) in enumerate(zip(norm, raw, strict=True))
                ]
            )
    except IntegrityError:
        # Another worker stored the same text first: its graph is the graph.
        return KnowledgeGraph.objects.get(**key)
    return graph


def imported_version(triplets: Sequence[Sequence[str]]) -> str:
    """``imported@1/<16 hex of the triplets' hash>``: the same text with another graph is another graph."""
    digest = hashlib.sha256(json.dumps([list(t) for t in triplets], ensure_ascii=False).encode("utf-8"))
    return f"{IMPORTED_VERSION}/{digest.hexdigest()[:16]}"


def graph_import(*, text: str, triplets: Sequence[Sequence[str]]) -> KnowledgeGraph:
    """Store a graph given with the data (extractor ``imported``), normalised, raw labels kept."""
    raw = [Triplet(str(t[0]), str(t[1]), str(t[2])) for t in triplets]
    return graph_store(text=text, extractor=IMPORTED, version=imported_version(triplets), raw=raw)


def shared_extractor(name: str) -> TripletExtractor:
    """One offline extractor per name for the process (the spaCy pipeline loads once)."""
    with _extractors_lock:
        if name not in _extractors:
            _extractors[name] = get_extractor(name)
        return _extractors[name]


def llm_extractor_for(endpoint: ModelEndpoint, *, use_cache: bool = True) -> LLMExtractor:
    """The few-shot LLM extractor on a model endpoint, through the platform's client (cache, limits).

    Completion endpoints (and the local llama.cpp model, which also gets the triplet grammar) receive the
    completion prompt as is, stopping at the end of the line; chat endpoints receive it as one user turn."""
    client = client_for(endpoint, use_cache=use_cache)
    local = endpoint.provider == ModelEndpoint.Provider.LOCAL
    completion = local or endpoint.mode == ModelEndpoint.Mode.COMPLETION

    def complete(prompt: str, grammar: str | None) -> str:
        if completion:
            request = LLMRequest(
                model=endpoint.model_id,
                prompt=prompt,
                temperature=0.0,
                max_tokens=LLM_EXTRACT_MAX_TOKENS,
                stop=("\n",),
                grammar=grammar if local else None,
            )
        else:
            request = LLMRequest(
                model=endpoint.model_id,
                messages=(ChatMessage("user", prompt),),
                temperature=0.0,
                max_tokens=LLM_EXTRACT_MAX_TOKENS,
            )
        return client.call(request, prompt_version=PROMPT_VERSION, use_cache=use_cache).text

    return LLMExtractor(complete, model=endpoint.name, use_grammar=local)


def graph_get_or_extract(*, text: str, extractor: TripletExtractor, name: str | None = None) -> KnowledgeGraph:
    """The stored graph of ``text`` by this extractor version, extracting it only when none is stored.

    ``name`` overrides the stored extractor name (``llm:<endpoint>``). An LLM answer that stays
    unparseable after its repair is stored as an unparseable graph with no triplets, so it is not asked
    again; provider errors propagate (transient ones are retried by the caller)."""
    stored_name = name or extractor.name
    existing = KnowledgeGraph.objects.filter(
        text_hash=text_hash(text), extractor=stored_name, extractor_version=extractor.version
    ).first()
    if existing is not None:
        return existing
    extract_raw: Any = getattr(extractor, "extract_raw", None)
    try:
        if callable(extract_raw):
            raw = list(extract_raw(text))
            pairs = _dedupe([(_normalised(t), t) for t in raw])
        else:
            norm = list(extractor.extract(text))
            pairs = [(t, t) for t in norm]
    except TripletParseError as exc:
        return graph_store(
            text=text,
            extractor=stored_name,
            version=extractor.version,
            raw=[],
            status=ScoreStatus.UNPARSEABLE,
            raw_output=str(exc)[:5000],
        )
    return graph_store(
        text=text,
        extractor=stored_name,
        version=extractor.version,
        raw=[r for _, r in pairs],
        normalised=[n for n, _ in pairs],
    )


def _dedupe(pairs: list[tuple[Triplet, Triplet]]) -> list[tuple[Triplet, Triplet]]:
    """Drop triplets whose normalised form repeats an earlier one or has an empty label (first kept)."""
    seen: set[Triplet] = set()
    out = []
    for norm, raw in pairs:
        if all(norm) and norm not in seen:
            seen.add(norm)
            out.append((norm, raw))
    return out


def graph_triplets(graph: KnowledgeGraph) -> list[Triplet]:
    """The normalised triplets in order, without repeats or empty labels (what the paper's variants read)."""
    rows = [Triplet(h, r, t) for h, r, t in graph.triplets.order_by("position").values_list("head", "relation", "tail")]
    return [t for _, t in _dedupe([(t, t) for t in rows])]


def graph_raw_triplets(graph: KnowledgeGraph) -> list[Triplet]:
    """The triplets exactly as extracted or imported, repeats included (what ``s3kg_reference`` reads)."""
    return [
        Triplet(h, r, t)
        for h, r, t in graph.triplets.order_by("position").values_list("raw_head", "raw_relation", "raw_tail")
    ]
