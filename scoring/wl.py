"""A normalised Weisfeiler-Lehman subtree kernel in plain Python.

The kernel of Shervashidze et al. (JMLR 2011) as S3KG uses it (Arumugam et al., ICML 2026, step 3):
every node starts with its label; each iteration replaces a node's label by a compressed label made of
its own label and the sorted multiset of its neighbours' labels. The feature vector of a graph counts
every label of every level (the initial labels and each iteration's); the kernel is the dot product of
two such vectors and the similarity is ``K12 / sqrt(K11 K22)``.

Three ways to read an edge list (``WLGraph.mode``):

- ``"undirected"``: a node's neighbours are the nodes it shares an edge with, either way round
  (edges are a set: a repeated or reversed edge counts once; a self loop makes a node its own
  neighbour once);
- ``"directed"``: direction-aware; a node's new label is made of its label, the sorted labels of its
  successors and, separately, the sorted labels of its predecessors, so ``a -> b`` and ``b -> a``
  differ from the first iteration on;
- ``"out"``: a node sees its successors only (what a kernel library does when handed an edge
  dictionary of an undirected graph: the S3KG authors' code, see ``docs/s3kg.md``).

Labels are arbitrary strings (any Unicode): they are compressed to integers, never hashed as ASCII.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from typing import Literal, TypeAlias

import networkx as nx

WLMode = Literal["undirected", "directed", "out"]

# 5: WL iterations after the initial labelling, S3KG step 3 (Arumugam et al., ICML 2026).
WL_ITERATIONS = 5


@dataclass(frozen=True)
class WLGraph:
    """A node-labelled graph: node ``i`` has ``labels[i]``; ``edges`` are (source, target) indices."""

    labels: tuple[str, ...]
    edges: tuple[tuple[int, int], ...]
    mode: WLMode = "undirected"

    def __post_init__(self) -> None:
        n = len(self.labels)
        for u, v in self.edges:
            if not (0 <= u < n and 0 <= v < n):
                raise ValueError(f"edge ({u}, {v}) names a node outside 0..{n - 1}")

    @classmethod
    def build(cls, labels: Sequence[str], edges: Sequence[tuple[int, int]], mode: WLMode) -> WLGraph:
        return cls(tuple(labels), tuple((int(u), int(v)) for u, v in edges), mode)

    def __len__(self) -> int:
        return len(self.labels)


def from_networkx(graph: nx.Graph, label_attr: str = "label", mode: WLMode | None = None) -> WLGraph:
    """Convert a networkx graph; a node without ``label_attr`` is labelled ``str(node)``.

    The mode defaults to ``"directed"`` for a ``DiGraph`` and ``"undirected"`` otherwise; edges keep the
    graph's own iteration order (``"out"`` mode reads them as stored).
    """
    index: dict[Hashable, int] = {}
    labels: list[str] = []
    for node, data in graph.nodes(data=True):
        index[node] = len(labels)
        labels.append(str(data.get(label_attr, node)))
    edges = [(index[u], index[v]) for u, v in graph.edges()]
    if mode is None:
        mode = "directed" if graph.is_directed() else "undirected"
    return WLGraph.build(labels, edges, mode)


GraphLike: TypeAlias = "WLGraph | nx.Graph"


def _as_wl(graph: GraphLike) -> WLGraph:
    return graph if isinstance(graph, WLGraph) else from_networkx(graph)


def _neighbourhoods(graph: WLGraph) -> tuple[list[list[int]], list[list[int]] | None]:
    """Successor lists (or undirected neighbour lists) and, in directed mode, predecessor lists."""
    n = len(graph.labels)
    first: list[set[int]] = [set() for _ in range(n)]
    if graph.mode == "undirected":
        for u, v in graph.edges:
            first[u].add(v)
            first[v].add(u)
        return [sorted(s) for s in first], None
    second: list[set[int]] = [set() for _ in range(n)]
    for u, v in graph.edges:
        first[u].add(v)
        second[v].add(u)
    if graph.mode == "out":
        return [sorted(s) for s in first], None
    return [sorted(s) for s in first], [sorted(s) for s in second]


def wl_features(graphs: Sequence[GraphLike], iterations: int = WL_ITERATIONS) -> list[Counter[int]]:
    """One feature count per graph, with labels compressed jointly so the counts are comparable.

    Compressed ids are never shared between levels, so one ``Counter`` per graph holds every level and
    the kernel is a plain dot product.
    """
    if iterations < 0:
        raise ValueError("iterations must be >= 0")
    wl_graphs = [_as_wl(g) for g in graphs]
    codes: dict[object, int] = {}
    current: list[list[int]] = []
    for g in wl_graphs:
        current.append([codes.setdefault(("label", lab), len(codes)) for lab in g.labels])
    features = [Counter(ids) for ids in current]
    structure = [_neighbourhoods(g) for g in wl_graphs]
    for _ in range(iterations):
        for k, (first, second) in enumerate(structure):
            ids = current[k]
            if second is None:
                keys: list[object] = [(ids[v], tuple(sorted(ids[u] for u in first[v]))) for v in range(len(ids))]
            else:
                keys = [
                    (
                        ids[v],
                        tuple(sorted(ids[u] for u in first[v])),
                        tuple(sorted(ids[u] for u in second[v])),
                    )
                    for v in range(len(ids))
                ]
            new_ids = [codes.setdefault(key, len(codes)) for key in keys]
            current[k] = new_ids
            features[k].update(new_ids)
    return features


def _dot(a: Counter[int], b: Counter[int]) -> int:
    if len(a) > len(b):
        a, b = b, a
    return sum(count * b[key] for key, count in a.items())


def wl_kernel(g1: GraphLike, g2: GraphLike, iterations: int = WL_ITERATIONS) -> float:
    """The raw WL subtree kernel ``K(g1, g2)``: summed over the initial labels and each iteration."""
    f1, f2 = wl_features([g1, g2], iterations)
    return float(_dot(f1, f2))


def wl_similarity(g1: GraphLike, g2: GraphLike, iterations: int = WL_ITERATIONS) -> float:
    """``K12 / sqrt(K11 K22)`` in [0, 1].

    Empty graphs: two graphs without nodes are identical (1.0); one empty graph against a non-empty one
    shares nothing (0.0). A graph with nodes always has ``K11 >= 1``, so nothing else divides by zero.
    """
    w1, w2 = _as_wl(g1), _as_wl(g2)
    if len(w1) == 0 or len(w2) == 0:
        return 1.0 if len(w1) == len(w2) else 0.0
    f1, f2 = wl_features([w1, w2], iterations)
    value = _dot(f1, f2) / math.sqrt(_dot(f1, f1) * _dot(f2, f2))
    return min(1.0, max(0.0, value))
