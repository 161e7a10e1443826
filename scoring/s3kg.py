"""S3KG: the hybrid structural and semantic similarity of two knowledge graphs.

Arumugam et al., "Evaluation of Contextual Understanding in Large Language Models" (ICML 2026), five
steps: (1) keep, for every triplet of T1, its most similar triplet of T2 (the filtered set T2');
(2) replace every entity label of G1 by its most similar entity label of G2' above a cosine threshold,
relation labels likewise and separately; (3) normalised Weisfeiler-Lehman subtree kernel; (4) cosine of
the mean triplet embeddings of T1 and T2', clipped to [0, 1]; (5) a blend of the two weighted by alpha.

alpha weights the structural score, in every variant: ``alpha S_WL + (1 - alpha) S_SBERT``, as the authors'
code and every alpha figure they published (the best alpha of Table 1, the sweeps of Tables 4-6, Table 13's
alpha = 0 and alpha = 1 columns). The text's Eq. 2 writes ``(1 - alpha) S_WL + alpha S_SBERT``: the same at the
default 0.5, the mirror image elsewhere (an alpha by Eq. 2 is ``1 - alpha`` here).

Four named, versioned variants (``VARIANTS``); ``docs/s3kg.md`` defines each exactly. The default,
``DEFAULT_VARIANT``, is ``s3kg_directed``: the paper's text with edge direction, the one that gives the
paper's worked example (Table 13) its verdicts. T1 is the graph being judged (the answer's), T2 the
reference (the gold answer's or the context's). Every score lies in [0, 1]; a graph with no triplet on
either side scores 0.0 with ``empty=True``.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np

from scoring.embeddings import Matrix, TextEncoder
from scoring.kg.types import Triplet, normalise_triplets, triplet_text
from scoring.wl import WL_ITERATIONS, WLGraph, wl_similarity

# 0.65: soft label alignment threshold, S3KG step 2 (Arumugam et al., ICML 2026).
LABEL_THRESHOLD = 0.65
# 0.5: blend weight alpha, S3KG Eq. 2 and Table 3 (swept 0.0..1.0 in the paper's Tables 4-6). As in the authors'
# code and published sweeps, alpha weights the structural (WL) score: alpha S_WL + (1 - alpha) S_SBERT.
ALPHA = 0.5
# The score alpha weights, for labels and manifests (the authors' convention, not the text's Eq. 2).
ALPHA_WEIGHTS = "structural"

Structure = Literal["relations_undirected", "relations_directed", "reference"]
TripletLike = Sequence[str]


@dataclass(frozen=True)
class VariantSpec:
    """One exactly defined S3KG variant; ``version`` changes whenever its scores could change."""

    name: str
    version: str
    structure: Structure
    symmetric: bool
    summary: str


VARIANTS: dict[str, VariantSpec] = {
    "s3kg": VariantSpec(
        "s3kg",
        "s3kg/2",
        "relations_undirected",
        False,
        "The paper's text: T2' filtering, entity and relation labels aligned separately (cosine > 0.65), "
        "WL subtree kernel (5 iterations) on the undirected graph entity - relation - entity; blind to a "
        "role reversal.",
    ),
    "s3kg_directed": VariantSpec(
        "s3kg_directed",
        "s3kg_directed/2",
        "relations_directed",
        False,
        "The default. As s3kg, with direction: head -> relation -> tail, WL labels built from successors "
        "and predecessors separately, so a reversed fact differs (the paper's Table 13 verdicts).",
    ),
    "s3kg_symmetric": VariantSpec(
        "s3kg_symmetric",
        "s3kg_symmetric/2",
        "relations_undirected",
        True,
        "F-style: harmonic mean of s3kg(T1, T2) and s3kg(T2, T1), so reference triplets the judged "
        "graph omits lower the score.",
    ),
    "s3kg_reference": VariantSpec(
        "s3kg_reference",
        "s3kg_reference/1",
        "reference",
        False,
        "The authors' published code: undirected simple graph of (head, tail) keyed by lower-cased raw "
        "labels, node labels only, edge list read as directed in insertion order.",
    ),
}
# The default variant: the paper's text made direction-aware. The paper's own worked example (Table 13) has a
# role reversal scored Not Similar and a paraphrase 1.0; the undirected s3kg scores the reversal near 1.
DEFAULT_VARIANT = "s3kg_directed"


@dataclass(frozen=True)
class S3KGResult:
    """A score with its two components; ``empty`` when either graph had no triplet (score 0.0)."""

    score: float
    structural: float
    semantic: float
    variant: str
    version: str
    empty: bool = False


def _unit(value: float) -> float:
    if not math.isfinite(value):
        return 0.0
    return min(1.0, max(0.0, value))


def blend(alpha: float, structural: float, semantic: float) -> float:
    """Step 5 as the authors' code and their published sweeps: alpha weights the structural score."""
    return _unit(alpha * structural + (1.0 - alpha) * semantic)


def _harmonic(a: float, b: float) -> float:
    return 0.0 if a + b <= 0.0 else 2.0 * a * b / (a + b)


def _mean_cosine(e1: Matrix, e2: Matrix) -> float:
    """Cosine of the mean rows of two embedding matrices, clipped to [0, 1] (S3KG step 4)."""
    m1, m2 = e1.mean(axis=0), e2.mean(axis=0)
    denominator = float(np.linalg.norm(m1) * np.linalg.norm(m2))
    if denominator <= 0.0:
        return 0.0
    return _unit(float(m1 @ m2) / denominator)


def _filter_t2(e1: Matrix, e2: Matrix, t2: Sequence[Triplet]) -> list[int]:
    """Step 1: each T1 triplet's most similar T2 triplet, distinct by content, in first-pick order.

    A triplet repeated in T2 counts once (the first copy), whichever copy the arg-max lands on.
    """
    first_copy: dict[Triplet, int] = {}
    for j, t in enumerate(t2):
        first_copy.setdefault(t, j)
    best = np.argmax(e1 @ e2.T, axis=1)
    return list(dict.fromkeys(first_copy[t2[int(j)]] for j in best))


def _spec(variant: str) -> VariantSpec:
    try:
        return VARIANTS[variant]
    except KeyError:
        raise ValueError(f"unknown S3KG variant {variant!r}; known: {', '.join(VARIANTS)}") from None


def _prepare(triplets: Iterable[TripletLike], spec: VariantSpec) -> list[Triplet]:
    """Normalised triplets for the paper's variants; for the reference, labels exactly as given."""
    if spec.structure != "reference":
        return normalise_triplets(triplets)
    out: list[Triplet] = []
    for item in triplets:
        if isinstance(item, str) or len(item) != 3 or not all(isinstance(part, str) for part in item):
            raise ValueError(f"a triplet must be three strings, got {item!r}")
        out.append(Triplet(item[0], item[1], item[2]))
    return out


# --- the paper's variants ----------------------------------------------------------------------------


def _distinct(values: Iterable[str]) -> list[str]:
    return list(dict.fromkeys(values))


def _entities(triplets: Sequence[Triplet]) -> list[str]:
    return _distinct(label for t in triplets for label in (t.head, t.tail))


def _align(labels1: list[str], labels2: list[str], encoder: TextEncoder, threshold: float) -> dict[str, str]:
    """Step 2: each label of G1 becomes its most similar label of G2 when the cosine exceeds threshold.

    A label present in both graphs keeps itself; a label with no match above the threshold is unchanged.
    """
    mapping = {label: label for label in labels1}
    if not labels1 or not labels2:
        return mapping
    known = set(labels2)
    sims = encoder.encode(labels1) @ encoder.encode(labels2).T
    for i, label in enumerate(labels1):
        if label in known:
            continue
        j = int(np.argmax(sims[i]))
        if float(sims[i, j]) > threshold:
            mapping[label] = labels2[j]
    return mapping


def relation_graph(triplets: Sequence[Triplet], directed: bool) -> WLGraph:
    """Entities as nodes (one per label), one relation node per distinct triplet: head - rel - tail."""
    labels: list[str] = []
    entity_index: dict[str, int] = {}
    edges: list[tuple[int, int]] = []

    def entity(label: str) -> int:
        if label not in entity_index:
            entity_index[label] = len(labels)
            labels.append("E:" + label)
        return entity_index[label]

    for t in dict.fromkeys(triplets):
        h, tail = entity(t.head), entity(t.tail)
        r = len(labels)
        labels.append("R:" + t.relation)
        edges.extend(((h, r), (r, tail)))
    return WLGraph.build(labels, edges, "directed" if directed else "undirected")


def _one_way(
    t1: Sequence[Triplet],
    t2: Sequence[Triplet],
    encoder: TextEncoder,
    alpha: float,
    threshold: float,
    iterations: int,
    directed: bool,
) -> tuple[float, float, float]:
    e1 = encoder.encode([triplet_text(t) for t in t1])
    e2 = encoder.encode([triplet_text(t) for t in t2])
    kept = _filter_t2(e1, e2, t2)
    t2f = [t2[j] for j in kept]
    semantic = _mean_cosine(e1, e2[kept])
    entity_map = _align(_entities(t1), _entities(t2f), encoder, threshold)
    relation_map = _align(_distinct(t.relation for t in t1), _distinct(t.relation for t in t2f), encoder, threshold)
    aligned = [Triplet(entity_map[t.head], relation_map[t.relation], entity_map[t.tail]) for t in t1]
    structural = wl_similarity(relation_graph(aligned, directed), relation_graph(t2f, directed), iterations)
    return blend(alpha, structural, semantic), _unit(structural), semantic


# --- the authors' code ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class _RefGraph:
    nodes: list[str]  # lower-cased labels in first-appearance order (head before tail)
    edges: list[tuple[int, int]]  # (earlier node, later node), self loops kept
    relations: list[str]  # lower-cased relation of each stored edge, the last triplet's winning


def _reference_graph(triplets: Sequence[Triplet]) -> _RefGraph:
    index: dict[str, int] = {}
    edge_relation: dict[tuple[int, int], str] = {}
    for h, r, t in triplets:
        i = index.setdefault(h.lower(), len(index))
        j = index.setdefault(t.lower(), len(index))
        edge_relation[(min(i, j), max(i, j))] = r.lower()
    return _RefGraph(list(index), list(edge_relation), _distinct(edge_relation.values()))


def _reference_mapping(
    labels1: list[str], labels2: list[str], encoder: TextEncoder, threshold: float, prefix: str
) -> tuple[dict[str, str], dict[str, str]]:
    """Each G2 label gets its own anchor; a G1 label takes its best G2 label's anchor at cosine >= t."""
    if not labels1 or not labels2:
        return {}, {}
    sims = encoder.encode(labels1) @ encoder.encode(labels2).T
    map2 = {label: f"\x00{prefix}\x00{label}" for label in labels2}
    map1: dict[str, str] = {}
    for i, label in enumerate(labels1):
        j = int(np.argmax(sims[i]))
        map1[label] = map2[labels2[j]] if float(sims[i, j]) >= threshold else label
    return map1, map2


def _reference(
    t1: Sequence[Triplet],
    t2: Sequence[Triplet],
    encoder: TextEncoder,
    alpha: float,
    threshold: float,
    iterations: int,
) -> tuple[float, float, float]:
    e1 = encoder.encode([triplet_text(t) for t in t1])
    e2 = encoder.encode([triplet_text(t) for t in t2])
    kept = _filter_t2(e1, e2, t2)
    t2f = [t2[j] for j in kept]
    semantic = _mean_cosine(e1, e2[kept])
    g1, g2 = _reference_graph(t1), _reference_graph(t2f)
    if not g1.edges or not g2.edges:
        return semantic, 0.0, semantic
    ent1, ent2 = _reference_mapping(g1.nodes, g2.nodes, encoder, threshold, "node")
    rel1, rel2 = _reference_mapping(g1.relations, g2.relations, encoder, threshold, "rel")
    # The authors merge both mappings into one dict, relations last: a node whose label is also a
    # relation label of its graph takes the relation mapping. Reproduced as is.
    map1, map2 = {**ent1, **rel1}, {**ent2, **rel2}
    w1 = WLGraph.build([map1.get(n, n) for n in g1.nodes], g1.edges, "out")
    w2 = WLGraph.build([map2.get(n, n) for n in g2.nodes], g2.edges, "out")
    structural = wl_similarity(w1, w2, iterations)
    return blend(alpha, structural, semantic), structural, semantic


# --- public API ------------------------------------------------------------------------------------


def _strings(t1: Sequence[Triplet], t2: Sequence[Triplet], spec: VariantSpec) -> list[str]:
    """Every string a comparison of t1 and t2 may embed, for one batched ``prime`` pass."""
    out = [triplet_text(t) for t in (*t1, *t2)]
    both = (*t1, *t2)
    if spec.structure == "reference":
        out.extend(label.lower() for t in both for label in t)
    else:
        out.extend(label for t in both for label in t)
    return out


def _score_prepared(
    t1: list[Triplet],
    t2: list[Triplet],
    spec: VariantSpec,
    encoder: TextEncoder,
    alpha: float,
    threshold: float,
    iterations: int,
) -> S3KGResult:
    if not t1 or not t2:
        return S3KGResult(0.0, 0.0, 0.0, spec.name, spec.version, empty=True)
    if spec.structure == "reference":
        score, structural, semantic = _reference(t1, t2, encoder, alpha, threshold, iterations)
    else:
        directed = spec.structure == "relations_directed"
        score, structural, semantic = _one_way(t1, t2, encoder, alpha, threshold, iterations, directed)
        if spec.symmetric:
            back = _one_way(t2, t1, encoder, alpha, threshold, iterations, directed)
            score = _harmonic(score, back[0])
            structural = _harmonic(structural, back[1])
            semantic = _harmonic(semantic, back[2])
    return S3KGResult(_unit(score), _unit(structural), _unit(semantic), spec.name, spec.version)


def _check(alpha: float, label_threshold: float, iterations: int) -> None:
    if not 0.0 <= alpha <= 1.0:
        raise ValueError("alpha must lie in [0, 1]")
    if not -1.0 <= label_threshold <= 1.0:
        raise ValueError("label_threshold is a cosine: it must lie in [-1, 1]")
    if iterations < 0:
        raise ValueError("iterations must be >= 0")


def s3kg_score(
    t1: Sequence[TripletLike],
    t2: Sequence[TripletLike],
    *,
    encoder: TextEncoder,
    alpha: float = ALPHA,
    variant: str = DEFAULT_VARIANT,
    label_threshold: float = LABEL_THRESHOLD,
    iterations: int = WL_ITERATIONS,
) -> S3KGResult:
    """S3KG of the judged graph ``t1`` against the reference ``t2`` (order matters: T2 is filtered).

    Pass triplets as extracted or imported: the paper's variants normalise labels themselves
    (idempotent), ``s3kg_reference`` needs the labels as imported (it embeds the raw text).
    """
    spec = _spec(variant)
    _check(alpha, label_threshold, iterations)
    p1, p2 = _prepare(t1, spec), _prepare(t2, spec)
    encoder.prime(_strings(p1, p2, spec))
    return _score_prepared(p1, p2, spec, encoder, alpha, label_threshold, iterations)


def s3kg_many(
    pairs: Sequence[tuple[Sequence[TripletLike], Sequence[TripletLike]]],
    *,
    encoder: TextEncoder,
    alpha: float = ALPHA,
    variant: str = DEFAULT_VARIANT,
    label_threshold: float = LABEL_THRESHOLD,
    iterations: int = WL_ITERATIONS,
) -> list[S3KGResult]:
    """``s3kg_score`` over many pairs, with every distinct string of every pair encoded in one pass."""
    spec = _spec(variant)
    _check(alpha, label_threshold, iterations)
    prepared = [(_prepare(a, spec), _prepare(b, spec)) for a, b in pairs]
    encoder.prime(text for p1, p2 in prepared for text in _strings(p1, p2, spec))
    return [_score_prepared(p1, p2, spec, encoder, alpha, label_threshold, iterations) for p1, p2 in prepared]


def s3kg_strings(pairs: Sequence[tuple[Sequence[TripletLike], Sequence[TripletLike]]], variant: str) -> list[str]:
    """The distinct strings ``s3kg_many`` would encode for these pairs (for priming across variants)."""
    spec = _spec(variant)
    prepared = [(_prepare(a, spec), _prepare(b, spec)) for a, b in pairs]
    return _distinct(text for p1, p2 in prepared for text in _strings(p1, p2, spec))
