"""The conflict functions take what ConflictQA and ConflictNQ carry (five records of each, from ../shared/data).

The fields are mapped as the corpus importer maps them: ``answer`` (the context-supported answer) is the ground
truth; ConflictQA's ``memory_answer`` (GPT-4's own closed-book answer) and ConflictNQ's ``real_answer`` are the
original answer. Expected outcomes are derived from each record's own fields, never written in."""

from __future__ import annotations

import itertools
import json
from pathlib import Path
from typing import Any

import pytest

from scoring.conflict import (
    ALTERATION_KINDS,
    ItemFacts,
    context_following,
    context_preference_by_distance,
    context_preference_by_kind,
    memorisation_ratio,
    observe,
)


def _records(path: Path, n: int = 5) -> list[dict[str, Any]]:
    if not path.is_file():
        pytest.skip(f"{path} not found")
    with path.open(encoding="utf-8") as f:
        return [json.loads(line) for line in itertools.islice(f, n)]


def _verifiable(facts: ItemFacts) -> bool:
    divergent, original = facts.markers()
    return bool(divergent) and bool(original)


def test_conflictqa_memory_answer_is_the_models_own_prior(shared_data: Path) -> None:
    rows = _records(shared_data / "conflictqa_strategyqa" / "conflictqa_strategyqa_gpt4_balanced_300.jsonl")
    observations = []
    for row in rows:
        facts = ItemFacts(ground_truth=row["answer"], original_answer=row["memory_answer"])
        # GPT-4 answering with the counter-memory context and giving the counter answer.
        o = observe(row["id"], facts, answer=row["answer"], closed_book_answer=row["memory_answer"])
        # Its closed-book answer is the original itself: it knows it wherever words can tell the two apart.
        assert o.prior == ("knows_original" if _verifiable(facts) else "unverified")
        assert o.answer == ("followed_context" if _verifiable(facts) else None)
        assert o.kind in ALTERATION_KINDS
        observations.append(o)
    n_verifiable = sum(1 for o in observations if o.answer is not None)
    ratio = memorisation_ratio(observations, n_boot=100)
    assert ratio.counts.followed == n_verifiable and ratio.counts.unclassified == len(rows) - n_verifiable
    assert ratio.ratio.value == (0.0 if n_verifiable else None)
    following = context_following(observations, n_boot=100)
    assert following.conflict_only.value == (1.0 if n_verifiable else None)
    assert following.priors["knows_original"] + following.priors["unverified"] == len(rows)


def test_conflictnq_real_and_fake_answers(shared_data: Path) -> None:
    rows = _records(shared_data / "conflictnq" / "conflictnq_test.jsonl")
    observations = []
    for i, row in enumerate(rows):
        facts = ItemFacts(ground_truth=row["answer"], original_answer=row["real_answer"])
        verifiable = _verifiable(facts)
        knows = observe(row["id"], facts, answer=None, closed_book_answer=row["real_answer"])
        assert knows.prior == ("knows_original" if verifiable else "unverified")
        abstains = observe(row["id"], facts, answer=None, closed_book_answer="I don't know.")
        assert abstains.prior == ("does_not_know" if verifiable else "unverified")
        # A model that knows the real answer, then answers with the fake one on even rows, the real one on odd.
        given = row["answer"] if i % 2 == 0 else row["real_answer"]
        o = observe(row["id"], facts, answer=given, closed_book_answer=row["real_answer"])
        expected = ("followed_context" if i % 2 == 0 else "reverted_to_prior") if verifiable else None
        assert o.answer == expected
        if o.kind in ("number", "date"):
            assert o.distance is None or o.distance >= 0.0
        observations.append(o)
    followed = sum(1 for o in observations if o.answer == "followed_context")
    reverted = sum(1 for o in observations if o.answer == "reverted_to_prior")
    ratio = memorisation_ratio(observations, n_boot=100)
    assert ratio.ratio.value == (reverted / (reverted + followed) if reverted + followed else None)
    by_kind = context_preference_by_kind(observations, n_boot=100)
    assert sum(rate.counts.classified for rate in by_kind.values()) == followed + reverted
    for kind in ("number", "date"):
        bins = context_preference_by_distance(observations, kind, n_boot=100)
        in_bins = sum(b.preference.counts.classified for b in bins)
        assert in_bins == sum(1 for o in observations if o.kind == kind and o.distance is not None and o.answer)
