"""Converse rules on frames (no parser needed) and the extraction-quality matching against gold triplets."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from scoring.kg.converse import BINARY_CONVERSES, PREP_CONVERSES, TERNARY_CONVERSES, TRANSITIVE_CONVERSES, canonical
from scoring.kg.frames import Frame, frame_triplets
from scoring.kg.quality import evaluate, label_key, match_sentence
from scoring.kg.types import Triplet

ROOT = Path(__file__).resolve().parents[2]


def test_binary_converse_swaps_subject_and_prepositional_object_and_keeps_other_preps() -> None:
    frame = Frame(subjects=("nadal",), verb="lose", preps=(("to", ("federer",)), ("in", ("final",))))
    assert [list(frame_triplets(f)) for f in canonical(frame)] == [
        [Triplet("federer", "beat", "nadal"), Triplet("federer", "beat in", "final")]
    ]


def test_negation_survives_a_converse() -> None:
    frame = Frame(subjects=("chelsea",), verb="lose", preps=(("to", ("arsenal",)),), negated=True)
    assert list(frame_triplets(canonical(frame)[0])) == [Triplet("arsenal", "not beat", "chelsea")]


def test_ternary_converse_moves_the_subject_to_the_goal() -> None:
    frame = Frame(subjects=("james",), verb="buy", objects=("car",), preps=(("from", ("emma",)),))
    assert list(frame_triplets(canonical(frame)[0])) == [
        Triplet("emma", "sell", "car"),
        Triplet("emma", "sell to", "james"),
    ]


def test_prep_converse_splits_off_the_converse_preposition() -> None:
    frame = Frame(subjects=("dinner",), verb="take place", preps=(("after", ("meeting",)), ("in", ("paris",))))
    triplets = [t for f in canonical(frame) for t in frame_triplets(f)]
    assert triplets == [Triplet("dinner", "take place in", "paris"), Triplet("meeting", "take place before", "dinner")]


def test_prep_converse_only_for_positional_predicates() -> None:
    frame = Frame(subjects=("he",), verb="eat", preps=(("after", ("meeting",)),))
    assert canonical(frame) == [frame]


def test_an_agentless_passive_is_not_reversed_by_a_verb_converse() -> None:
    frame = Frame(subjects=("car",), verb="buy", preps=(("from", ("emma",)),), passive=True)
    assert canonical(frame) == [frame]


def test_canonical_forms_are_never_rewritten_again() -> None:
    assert not set(BINARY_CONVERSES.values()) & {v for v, _ in BINARY_CONVERSES}
    assert not set(TRANSITIVE_CONVERSES.values()) & set(TRANSITIVE_CONVERSES)
    assert not set(TERNARY_CONVERSES.values()) & set(TERNARY_CONVERSES)
    assert not set(PREP_CONVERSES.values()) & set(PREP_CONVERSES)
    for frame in (
        Frame(subjects=("a",), verb="lose", preps=(("to", ("b",)),)),
        Frame(subjects=("a",), verb="be", preps=(("older than", ("b",)),)),
        Frame(subjects=("a",), verb="buy", objects=("o",), preps=(("from", ("b",)),)),
    ):
        once = canonical(frame)
        assert [g for f in once for g in canonical(f)] == once


def test_label_key_reads_hyphens_as_spaces_and_drops_punctuation() -> None:
    assert label_key("Philips flat-screen TV") == label_key("philips flat - screen tv")
    assert label_key("November 22 , 2011") == ("november", "22", "2011")


def test_match_sentence_strict_relaxed_and_error_types() -> None:
    gold = [("man", "wear", "cloak"), ("man", "hold", "stick"), ("cat", "chase", "mouse"), ("a", "see", "b")]
    predicted = [
        ("man", "wear", "cloak"),  # strict
        ("old man", "hold", "wooden stick"),  # relaxed (same last words)
        ("mouse", "chase", "cat"),  # reversed
        ("a", "hear", "b"),  # wrong relation
        ("dog", "bark", "tree"),  # spurious
    ]
    m = match_sentence(predicted, gold)
    assert (m.strict, m.relaxed, m.n_pred, m.n_gold) == (1, 2, 5, 4)
    assert m.errors == {"reversed": 1, "wrong_relation": 1, "spurious": 1}


def test_unexplained_gold_triplets_are_missing() -> None:
    m = match_sentence([], [("a", "see", "b")])
    assert m.errors == {"missing": 1}
    report = evaluate([[], [Triplet("a", "see", "b")]], [[("a", "see", "b")], [("a", "see", "b")]])
    figures = report.figures()
    assert figures["strict_recall"] == 0.5
    assert figures["strict_precision"] == 1.0
    assert figures["empty_sentences"] == 1


def test_evaluate_rejects_mismatched_lengths() -> None:
    with pytest.raises(ValueError, match="predictions for"):
        evaluate([[]], [])


def test_gold_set_has_100_annotated_sentences_from_two_sources() -> None:
    rows = [json.loads(line) for line in (ROOT / "data" / "kg_gold" / "kg_gold.jsonl").read_text().splitlines()]
    assert len(rows) == 100
    assert {r["source"] for r in rows} == {"paws-wiki", "stsb-images"}
    assert all(r["triplets"] and all(len(t) == 3 and all(t) for t in r["triplets"]) for r in rows)


def test_role_reversal_set_is_large_enough_and_mixed() -> None:
    path = ROOT / "data" / "role_reversal" / "role_reversal_pairs.jsonl"
    rows = [json.loads(line) for line in path.read_text().splitlines()]
    assert len(rows) >= 60
    assert {r["label"] for r in rows} == {0, 1}
    assert len({r["construction"] for r in rows}) >= 8
    assert len({r["id"] for r in rows}) == len(rows)
