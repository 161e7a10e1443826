"""The WL subtree kernel against hand-computed values."""

from __future__ import annotations

import math

import networkx as nx
import pytest

from scoring.wl import WLGraph, from_networkx, wl_kernel, wl_similarity

# G1: path A - B - A; G2: path A - A - B (undirected, three nodes each).
G1 = WLGraph.build(["A", "B", "A"], [(0, 1), (1, 2)], "undirected")
G2 = WLGraph.build(["A", "A", "B"], [(0, 1), (1, 2)], "undirected")


def test_kernel_one_iteration_by_hand() -> None:
    # Level 0: both graphs count A:2, B:1 -> K12 = 2*2 + 1*1 = 5, K11 = K22 = 5.
    # Level 1: G1 has (A|B) x2, (B|AA) x1 -> K11 += 4 + 1; G2 has (A|A), (A|AB), (B|A) -> K22 += 3; K12 += 0.
    assert wl_kernel(G1, G2, iterations=1) == 5.0
    assert wl_kernel(G1, G1, iterations=1) == 10.0
    assert wl_kernel(G2, G2, iterations=1) == 8.0
    assert wl_similarity(G1, G2, iterations=1) == pytest.approx(5 / math.sqrt(80))  # 0.5590


def test_kernel_five_iterations_by_hand() -> None:
    # Every later level repeats level 1's pattern: K11 = 5 * 6 = 30, K22 = 5 + 3 * 5 = 20, K12 = 5.
    assert wl_kernel(G1, G1) == 30.0
    assert wl_kernel(G2, G2) == 20.0
    assert wl_kernel(G1, G2) == 5.0
    assert wl_similarity(G1, G2) == pytest.approx(5 / math.sqrt(600))  # 0.2041


def test_identical_graphs_give_one() -> None:
    assert wl_similarity(G1, G1) == pytest.approx(1.0)


def test_direction_modes_on_a_reversed_path() -> None:
    forward = [(0, 1), (1, 2)]  # A -> B -> C
    backward = [(1, 0), (2, 1)]  # C -> B -> A
    labels = ["A", "B", "C"]
    # Undirected: the same graph.
    assert wl_similarity(
        WLGraph.build(labels, forward, "undirected"), WLGraph.build(labels, backward, "undirected")
    ) == pytest.approx(1.0)
    # Directed and out-only: only level 0 matches (3 of 3 * 6 = 18 self-matches) -> 1/6.
    for mode in ("directed", "out"):
        a = WLGraph.build(labels, forward, mode)
        b = WLGraph.build(labels, backward, mode)
        assert wl_similarity(a, b) == pytest.approx(1 / 6)


def test_empty_graphs_have_documented_values() -> None:
    empty = WLGraph.build([], [], "undirected")
    assert wl_similarity(empty, empty) == 1.0
    assert wl_similarity(empty, G1) == 0.0
    assert wl_similarity(G1, empty) == 0.0


def test_non_ascii_labels_and_networkx_input() -> None:
    g = nx.DiGraph()
    g.add_edge("zoë", "münchen")
    nx.set_node_attributes(g, {"zoë": "Zoë Ñúñez", "münchen": "München"}, "label")
    h = nx.DiGraph()
    h.add_edge("m", "z")
    nx.set_node_attributes(h, {"m": "München", "z": "Zoë Ñúñez"}, "label")
    assert from_networkx(g).mode == "directed"
    assert wl_similarity(g, g) == pytest.approx(1.0)
    # Same labels, edge reversed: level 0 only -> 2 / (2 * 6).
    assert wl_similarity(g, h) == pytest.approx(1 / 6)


def test_out_of_range_edge_is_rejected() -> None:
    with pytest.raises(ValueError):
        WLGraph.build(["A"], [(0, 1)], "undirected")
