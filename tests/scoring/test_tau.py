"""TAU diagnosis and the KEA-style baseline on a tiny hand-made example."""

from __future__ import annotations

from scoring.kg.types import Triplet
from scoring.tau import kea_align, tau_diagnose, tau_lowest
from tests.scoring.s3kg_helpers import OneHotEncoder

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
