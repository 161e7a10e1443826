"""S3KG and its variants: hand-computed scores with a one-hot test encoder, behaviour with MiniLM."""

from __future__ import annotations

import math

import pytest

from scoring.embeddings import Encoder
from scoring.s3kg import VARIANTS, s3kg_many, s3kg_score
from tests.scoring.s3kg_helpers import OneHotEncoder, minilm

T1 = [("a", "r", "b"), ("a", "r", "c")]
T2 = [("a", "r", "b"), ("x", "y", "z")]


def test_s3kg_by_hand() -> None:
    # Step 1: "a r b" picks T2[0]; "a r c" is orthogonal to both and picks the first, T2[0]: T2' = [a r b].
    # Step 4: cos(mean(u1, u2), u1) = 0.5 / sqrt(0.5) = 1/sqrt(2).
    # Step 3 (labels E:a E:b E:c R:r R:r against E:a E:b R:r): K12 = 4 + 2 + 1 = 7, K11 = 7 + 5*5 = 32,
    # K22 = 3 + 3*5 = 18, so S_WL = 7 / sqrt(32 * 18) = 7/24.
    result = s3kg_score(T1, T2, encoder=OneHotEncoder(), variant="s3kg")
    assert result.semantic == pytest.approx(1 / math.sqrt(2), abs=1e-6)
    assert result.structural == pytest.approx(7 / 24, abs=1e-9)
    assert result.score == pytest.approx(0.5 * 7 / 24 + 0.5 / math.sqrt(2), abs=1e-6)  # 0.4994
    assert (result.variant, result.version, result.empty) == ("s3kg", VARIANTS["s3kg"].version, False)


def test_symmetric_by_hand() -> None:
    # Backwards, T1 filtered by T2 is [a r b]: semantic 1/sqrt(2); the a-r-b component of G(T2) matches
    # at every level: K12 = 3*6, K(T2) = 6*6, K(a r b) = 3*6, S_WL = 18 / sqrt(36 * 18) = 1/sqrt(2).
    forward = 0.5 * 7 / 24 + 0.5 / math.sqrt(2)
    backward = 1 / math.sqrt(2)
    result = s3kg_score(T1, T2, encoder=OneHotEncoder(), variant="s3kg_symmetric")
    assert result.score == pytest.approx(2 * forward * backward / (forward + backward), abs=1e-6)  # 0.5854
    assert result.structural == pytest.approx(2 * (7 / 24) * backward / (7 / 24 + backward), abs=1e-6)


def test_reference_by_hand() -> None:
    # Nodes a, b, c with edges a->b, a->c (out-only); G2' a->b. Labels of G1 aligned to G2's anchors:
    # a, b aligned, c not. Level 0: K12 = 2, K11 = 3, K22 = 2; later levels only b (no successors)
    # keeps matching: K12 = 2 + 5 = 7, K11 = 18, K22 = 12, S_WL = 7 / sqrt(216).
    t1 = [("A", "r", "B"), ("A", "r", "C")]
    t2 = [("A", "r", "B"), ("X", "y", "Z")]
    result = s3kg_score(t1, t2, encoder=OneHotEncoder(), variant="s3kg_reference")
    assert result.structural == pytest.approx(7 / math.sqrt(216), abs=1e-9)  # 0.4763
    assert result.score == pytest.approx(0.5 * 7 / math.sqrt(216) + 0.5 / math.sqrt(2), abs=1e-6)


@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_identical_graphs_score_one(variant: str) -> None:
    kg = [("Marie Curie", "discovered", "radium"), ("Marie Curie", "won", "Nobel Prize")]
    result = s3kg_score(kg, list(kg), encoder=OneHotEncoder(), variant=variant)
    assert result.score == pytest.approx(1.0)
    assert result.structural == pytest.approx(1.0)


@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_empty_graph_scores_zero_and_is_flagged(variant: str) -> None:
    kg = [("a", "r", "b")]
    for t1, t2 in (([], kg), (kg, []), ([], [])):
        result = s3kg_score(t1, t2, encoder=OneHotEncoder(), variant=variant)
        assert (result.score, result.structural, result.semantic, result.empty) == (0.0, 0.0, 0.0, True)


@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_alpha_weights_the_kernel_in_every_variant(variant: str) -> None:
    # The authors' convention (their code, their published sweeps): alpha S_WL + (1 - alpha) S_SBERT.
    enc = OneHotEncoder()
    base = s3kg_score(T1, T2, encoder=enc, variant=variant)
    assert s3kg_score(T1, T2, encoder=enc, variant=variant, alpha=1.0).score == pytest.approx(base.structural)
    assert s3kg_score(T1, T2, encoder=enc, variant=variant, alpha=0.0).score == pytest.approx(base.semantic)


def test_alpha_by_hand() -> None:
    # test_s3kg_by_hand's pair: S_WL = 7/24, S_SBERT = 1/sqrt(2). At alpha = 0.3 (MRPC's best alpha in the
    # paper's Table 1): 0.3 * 7/24 + 0.7 / sqrt(2) = 0.0875 + 0.4950 = 0.5825; Eq. 2 read literally would
    # give 0.7 * 7/24 + 0.3 / sqrt(2) = 0.4163.
    result = s3kg_score(T1, T2, encoder=OneHotEncoder(), variant="s3kg", alpha=0.3)
    assert result.score == pytest.approx(0.3 * 7 / 24 + 0.7 / math.sqrt(2), abs=1e-6)
    assert result.version == "s3kg/2"  # /1 put alpha on the semantic score


def test_unknown_variant_and_bad_alpha_are_errors() -> None:
    with pytest.raises(ValueError, match="unknown S3KG variant"):
        s3kg_score(T1, T2, encoder=OneHotEncoder(), variant="nope")
    with pytest.raises(ValueError, match="alpha"):
        s3kg_score(T1, T2, encoder=OneHotEncoder(), alpha=1.5)


def test_non_ascii_labels() -> None:
    kg = [("Zoë Ñúñez", "nació_en", "München"), ("München", "está_en", "Baviera")]
    for variant in VARIANTS:
        result = s3kg_score(kg, kg[::-1], encoder=OneHotEncoder(), variant=variant)
        assert result.score == pytest.approx(1.0)


# --- with the real MiniLM -------------------------------------------------------------------------

ANSWER = [("Federer", "defeated", "Nadal"), ("Federer", "won", "Wimbledon final")]
GOLD = [("Federer", "beat", "Nadal"), ("Federer", "won", "the Wimbledon final"), ("Nadal", "is", "Spanish")]


@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_scores_in_unit_interval_and_triplet_order_irrelevant(variant: str) -> None:
    enc = minilm()
    forward = s3kg_score(ANSWER, GOLD, encoder=enc, variant=variant)
    shuffled = s3kg_score(ANSWER[::-1], [GOLD[2], GOLD[0], GOLD[1]], encoder=enc, variant=variant)
    for r in (forward, shuffled):
        assert 0.0 <= r.score <= 1.0 and 0.0 <= r.structural <= 1.0 and 0.0 <= r.semantic <= 1.0
    if variant != "s3kg_reference":  # the reference orients edges by first appearance: order-dependent
        assert shuffled.score == pytest.approx(forward.score, abs=1e-6)


def test_role_reversal_below_paraphrase_under_directed() -> None:
    enc = minilm()
    original = [("Federer", "defeated", "Nadal")]
    reversal = [("Nadal", "defeated", "Federer")]
    paraphrase = [("Federer", "beat", "Nadal")]
    rev = s3kg_score(reversal, original, encoder=enc, variant="s3kg_directed")
    par = s3kg_score(paraphrase, original, encoder=enc, variant="s3kg_directed")
    assert rev.score < par.score
    # Only the initial labels of the reversed fact match: 3 of 3 * 6 self-matches.
    assert rev.structural == pytest.approx(1 / 6)
    # The paper's undirected structure cannot see the reversal (the known weakness).
    assert s3kg_score(reversal, original, encoder=enc, variant="s3kg").structural == pytest.approx(1.0)


def test_many_encodes_each_distinct_string_once_and_matches_single_scores() -> None:
    enc = Encoder()
    pairs = [(ANSWER, GOLD), (GOLD, ANSWER), (ANSWER, ANSWER)]
    batched = s3kg_many(pairs, encoder=enc, variant="s3kg")
    assert enc.model_calls == 1
    calls = enc.model_calls
    singles = [s3kg_score(a, b, encoder=enc, variant="s3kg") for a, b in pairs]
    assert enc.model_calls == calls  # everything was cached by the batched pass
    assert [r.score for r in batched] == pytest.approx([r.score for r in singles])
    assert batched[2].score == pytest.approx(1.0)
