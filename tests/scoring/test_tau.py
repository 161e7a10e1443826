"""TAU diagnosis and the KEA-style baseline on a tiny hand-made example."""

from __future__ import annotations

import math

import pytest

from scoring.kg.types import Triplet
from scoring.tau import kea_align, tau_diagnose, tau_lowest
from tests.scoring.s3kg_helpers import OneHotEncoder, TableEncoder, minilm

GOLD = [
    Triplet("paris", "capital of", "france"),
    Triplet("berlin", "located in", "germany"),
    Triplet("einstein", "born in", "ulm"),
    Triplet("moon", "orbit", "earth"),
]
ANSWER = [
    Triplet("paris", "capital of", "france"),  # same fact: aligned
    Triplet("berlin", "located in", "spain"),  # relation and head match, tail differs: entity wrong
    Triplet("einstein", "die in", "ulm"),  # head and tail match, relation differs: relation wrong
    Triplet("unicorn", "live in", "scotland"),  # nothing matches: extra
]


def test_tau_classifies_every_leftover() -> None:
    result = tau_diagnose(ANSWER, GOLD, encoder=OneHotEncoder())
    assert result.aligned == [(0, 0, 1.0)]
    assert result.entity_wrong == [(1, 1)]
    assert result.relation_wrong == [(2, 2)]
    assert result.extra == [3]
    assert result.missing == [3]  # the moon fact was never stated
    assert result.counts == {"aligned": 1, "relation_wrong": 1, "entity_wrong": 1, "extra": 1, "missing": 1}


def test_tau_with_empty_sides() -> None:
    assert tau_diagnose([], GOLD, encoder=OneHotEncoder()).missing == [0, 1, 2, 3]
    assert tau_diagnose(ANSWER, [], encoder=OneHotEncoder()).extra == [0, 1, 2, 3]


def test_kea_matches_components_after_normalisation() -> None:
    answer = [Triplet("Paris", "Capital_of", "France"), Triplet("einstein", "die in", "ulm")]
    result = kea_align(answer, GOLD)
    assert result.aligned == [(0, 0, 1.0)]  # equal once lower-cased with underscores as spaces
    assert result.relation_wrong == [(1, 2)]
    assert result.missing == [1, 3]
    assert result.extra == []


def test_tau_lowest_takes_five_percent_at_least_one() -> None:
    items = [(f"q{i}", 1.0 - i / 100) for i in range(40)]  # q39 lowest, then q38
    assert tau_lowest(items) == ["q39", "q38"]  # ceil(0.05 * 40) = 2
    assert tau_lowest(items[:10]) == ["q9"]  # ceil(0.5) = 1
    assert tau_lowest([("a", 0.2), ("b", 0.1), ("c", 0.1)], fraction=0.5) == ["b", "c"]  # ties: input order
    assert tau_lowest([]) == []


# --- the paper's rules (S3KG §3.3): aligned only above 0.76; entity wrong with one or both entities --------


def _near_paraphrase(triplet_cosine: list[float]) -> TableEncoder:
    """Labels "capital of" / "capital city of" at cosine 0.8 (they match: >= 0.65); the two triplet texts at
    the cosine given by the vector's first coordinate against [1, 0, 0, 0]."""
    return TableEncoder(
        {
            "capital of": [1.0, 0.0],
            "capital city of": [0.8, 0.6],
            "paris capital of france": [1.0, 0.0, 0.0, 0.0],
            "paris capital city of france": triplet_cosine,
        }
    )


def test_alignment_needs_a_sentence_cosine_above_076() -> None:
    answer = [Triplet("paris", "capital of", "france")]
    gold = [Triplet("paris", "capital city of", "france")]
    # [19, 16, 2, 2] / 25 is a unit vector: cosine exactly 0.76, not above it. Every component matches
    # (paris = paris, 0.8 >= 0.65, france = france), yet the pair is not aligned; it is no error category
    # either, so the answer triplet is extra and the gold one missing.
    at = tau_diagnose(answer, gold, encoder=_near_paraphrase([19.0, 16.0, 2.0, 2.0]))
    assert at.counts == {"aligned": 0, "relation_wrong": 0, "entity_wrong": 0, "extra": 1, "missing": 1}
    # At 0.77 it aligns.
    above = tau_diagnose(answer, gold, encoder=_near_paraphrase([0.77, math.sqrt(1.0 - 0.77**2), 0.0, 0.0]))
    assert [(a, g) for a, g, _ in above.aligned] == [(0, 0)]
    assert above.aligned[0][2] == pytest.approx(0.77)


def test_entity_wrong_allows_both_entities_wrong() -> None:
    # One-hot: labels match only when equal. The relation matches, head and tail both differ: entity wrong.
    result = tau_diagnose([Triplet("lyon", "capital of", "italy")], GOLD[:1], encoder=OneHotEncoder())
    assert (result.entity_wrong, result.extra, result.missing) == ([(0, 0)], [], [])
    # A pair with one entity right is taken before one with both wrong, for the same gold triplet.
    answer = [Triplet("lyon", "capital of", "italy"), Triplet("paris", "capital of", "germany")]
    result = tau_diagnose(answer, GOLD[:1], encoder=OneHotEncoder())
    assert (result.entity_wrong, result.extra) == ([(1, 0)], [0])
    assert kea_align(answer, GOLD[:1]).entity_wrong == [(1, 0)]


def test_a_role_reversal_aligns_the_methods_limit() -> None:
    # Head and tail exchanged: the sentence encoder sees nearly the same sentence, so TAU aligns the reversed
    # fact (no category says "roles swapped"); KEA, matching components in place, calls it relation-right,
    # both entities wrong.
    answer = [Triplet("renzo furlan", "win against", "thomas johansson")]
    gold = [Triplet("thomas johansson", "win against", "renzo furlan")]
    result = tau_diagnose(answer, gold, encoder=minilm())
    assert [(a, g) for a, g, _ in result.aligned] == [(0, 0)]
    assert result.aligned[0][2] > 0.9  # MiniLM: 0.964
    assert kea_align(answer, gold).entity_wrong == [(0, 0)]
