"""The paper's worked example (S3KG paper, Appendix D, Table 13): two PAWS-Wiki pairs.

Positive: "His father returned as a finished violinist of the Russian School to Bombay." / "His father returned
to Bombay as ...": the same triplet (father, returned_to, Bombay) on both sides, S3KG 1.0, Similar.
Negative, a role reversal: (Renzo Furlan, won_against, Thomas Johansson) against (Thomas Johansson, won_against,
Renzo Furlan): alpha = 0 gives 0.8310, alpha = 1 gives 0.1361, alpha = 0.5 gives 0.4835, Not Similar.
A verdict is the score against the table's threshold tau = 0.92: Similar when score >= tau.
The table prints one triplet per sentence; the authors' graphs of that pair (their PAWS-Wiki KG file, pair 12)
hold a second one each, (.., won_in, finals), and those are what their 0.4835 was computed from.
"""

from __future__ import annotations

import math

import pytest

from scoring.kg_spec import KGSpec
from scoring.s3kg import DEFAULT_VARIANT, VARIANTS, s3kg_score
from tests.scoring.s3kg_helpers import TableEncoder, minilm

# 0.92: the decision threshold tau of the paper's Table 13 (Similar when the score reaches it).
TAU_TABLE13 = 0.92
# 0.8310: the paper's Table 13 score of the reversal at alpha = 0, the semantic (mean-pool SBERT) part.
PAPER_SEMANTIC = 0.8310
# 0.4835: the paper's Table 13 score of the reversal at alpha = 0.5.
PAPER_SCORE = 0.4835

REVERSAL_1 = [("Renzo Furlan", "won_against", "Thomas Johansson")]
REVERSAL_2 = [("Thomas Johansson", "won_against", "Renzo Furlan")]
PARAPHRASE = [("father", "returned_to", "Bombay")]
# The authors' graphs of the same pair (their PAWS-Wiki KG file, pair 12), labels as extracted.
AUTHORS_1 = [("Renzo_Furlan", "won_against", "Thomas_Johansson"), ("Renzo_Furlan", "won_in", "finals")]
AUTHORS_2 = [("Thomas_Johansson", "won_against", "Renzo_Furlan"), ("Thomas_Johansson", "won_in", "finals")]


def _printed_pair_encoder() -> TableEncoder:
    """The two triplet texts of the printed reversal at the paper's own semantic cosine, 0.8310."""
    other = math.sqrt(1.0 - PAPER_SEMANTIC**2)
    return TableEncoder(
        {
            "renzo furlan win against thomas johansson": [1.0, 0.0],
            "thomas johansson win against renzo furlan": [PAPER_SEMANTIC, other],
            "Renzo Furlan won_against Thomas Johansson": [1.0, 0.0],
            "Thomas Johansson won_against Renzo Furlan": [PAPER_SEMANTIC, other],
        }
    )


def _authors_pair_encoder(normalised: bool) -> TableEncoder:
    """The authors' two-triplet graphs: a = 'R won_against T', b = 'R won_in finals', c = 'T won_against R',
    d = 'T won_in finals'. Both a and b are closest to c (as paraphrase-MPNet-base-v2 found: the kernel value
    0.1361 needs G2' = {c}), and cos(mean(a, b), c) = (x + y) / sqrt(2) is the paper's 0.8310."""
    x = PAPER_SEMANTIC / math.sqrt(2.0)
    z = math.sqrt(1.0 - 2.0 * x * x)
    normalised_texts = [
        "renzo furlan win against thomas johansson",
        "renzo furlan win in final",
        "thomas johansson win against renzo furlan",
        "thomas johansson win in final",
    ]
    texts = normalised_texts if normalised else [" ".join(t) for t in [*AUTHORS_1, *AUTHORS_2]]
    vectors = [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [x, x, z], [0.0, 0.0, 1.0]]
    return TableEncoder(dict(zip(texts, vectors, strict=True)))


def test_the_default_variant_is_the_directed_one_everywhere() -> None:
    assert DEFAULT_VARIANT == "s3kg_directed" and DEFAULT_VARIANT in VARIANTS
    assert KGSpec().variants == [DEFAULT_VARIANT]
    assert KGSpec.from_dict({}).variants == [DEFAULT_VARIANT]


def test_printed_reversal_by_hand() -> None:
    enc = _printed_pair_encoder()
    # Directed WL over h -> r -> t: the three level-0 labels match, no later label does (every node's
    # successors and predecessors differ): K12 = 3, K11 = K22 = 3 * 6 = 18, S_WL = 1/6.
    directed = s3kg_score(REVERSAL_1, REVERSAL_2, encoder=enc, variant="s3kg_directed")
    assert directed.structural == pytest.approx(1 / 6)
    assert directed.semantic == pytest.approx(PAPER_SEMANTIC)
    assert directed.score == pytest.approx(0.5 / 6 + 0.5 * PAPER_SEMANTIC)  # 0.4988, paper 0.4835
    assert directed.score < TAU_TABLE13  # Not Similar, as the paper
    # The default is that variant.
    assert s3kg_score(REVERSAL_1, REVERSAL_2, encoder=enc).score == directed.score
    # The undirected literal reading sees the same graph twice: S_WL = 1, score 0.5 + 0.4155 = 0.9155.
    undirected = s3kg_score(REVERSAL_1, REVERSAL_2, encoder=enc, variant="s3kg")
    assert undirected.structural == pytest.approx(1.0)
    assert undirected.score == pytest.approx(0.5 + 0.5 * PAPER_SEMANTIC)
    # The authors' code orients the one edge by first appearance: Renzo -> Thomas against Thomas -> Renzo,
    # two level-0 matches of 2 * 6 self-matches, S_WL = 1/6 as well.
    reference = s3kg_score(REVERSAL_1, REVERSAL_2, encoder=enc, variant="s3kg_reference")
    assert reference.structural == pytest.approx(1 / 6)
    assert reference.score == pytest.approx(0.5 / 6 + 0.5 * PAPER_SEMANTIC)


def test_authors_graphs_reproduce_the_paper_by_hand() -> None:
    # s3kg_reference: G2' = {c} (Thomas -> Renzo); G1 = Renzo -> Thomas, Renzo -> finals ("finals" has no
    # counterpart and keeps its own label). Level 0: K12 = 2, K11 = 3, K22 = 2; no later label matches.
    # S_WL = 2 / sqrt(18 * 12) = 0.1361 (the paper's alpha = 1 column), score 0.5 * 0.1361 + 0.5 * 0.8310.
    ref = s3kg_score(AUTHORS_1, AUTHORS_2, encoder=_authors_pair_encoder(False), variant="s3kg_reference")
    assert ref.structural == pytest.approx(2 / math.sqrt(216))
    assert ref.semantic == pytest.approx(PAPER_SEMANTIC)
    assert ref.score == pytest.approx(0.5 * 2 / math.sqrt(216) + 0.5 * PAPER_SEMANTIC)
    assert round(ref.score, 4) == PAPER_SCORE
    # s3kg_directed: G1 has E:renzo, E:thomas, R:win against, E:final, R:win in; G2' has E:thomas,
    # R:win against, E:renzo. Level 0: K12 = 3; no later match. S_WL = 3 / sqrt(30 * 18) = 0.1291,
    # score 0.4800 against the paper's 0.4835.
    enc = _authors_pair_encoder(True)
    directed = s3kg_score(AUTHORS_1, AUTHORS_2, encoder=enc, variant="s3kg_directed")
    assert directed.structural == pytest.approx(3 / math.sqrt(540))
    assert directed.score == pytest.approx(0.5 * 3 / math.sqrt(540) + 0.5 * PAPER_SEMANTIC)
    # s3kg (undirected): thomas - win against matches at level 1 (2 labels), thomas again at level 2:
    # K12 = 3 + 2 + 1 = 6, S_WL = 6 / sqrt(540) = 0.2582, score 0.5446: here filtering, not direction,
    # keeps the undirected reading below the threshold.
    undirected = s3kg_score(AUTHORS_1, AUTHORS_2, encoder=enc, variant="s3kg")
    assert undirected.structural == pytest.approx(6 / math.sqrt(540))


def test_table13_alpha_columns_put_alpha_on_the_kernel() -> None:
    # Table 13 prints the reversal at alpha = 0 (0.8310) and alpha = 1 (0.1361). 0.1361 = 2 / sqrt(216) is the
    # kernel (test above) and 0.8310 the mean-pool cosine, so alpha = 1 is the kernel alone: the authors'
    # convention, alpha S_WL + (1 - alpha) S_SBERT, which every variant follows.
    enc = _authors_pair_encoder(False)
    assert s3kg_score(AUTHORS_1, AUTHORS_2, encoder=enc, variant="s3kg_reference", alpha=1.0).score == pytest.approx(
        0.1361, abs=5e-5
    )
    assert s3kg_score(AUTHORS_1, AUTHORS_2, encoder=enc, variant="s3kg_reference", alpha=0.0).score == pytest.approx(
        PAPER_SEMANTIC
    )
    enc = _authors_pair_encoder(True)
    assert s3kg_score(AUTHORS_1, AUTHORS_2, encoder=enc, alpha=1.0).score == pytest.approx(3 / math.sqrt(540))
    assert s3kg_score(AUTHORS_1, AUTHORS_2, encoder=enc, alpha=0.0).score == pytest.approx(PAPER_SEMANTIC)


def test_paraphrase_scores_one_under_every_variant() -> None:
    enc = _printed_pair_encoder()
    for variant in VARIANTS:
        result = s3kg_score(PARAPHRASE, list(PARAPHRASE), encoder=enc, variant=variant)
        assert result.score == pytest.approx(1.0)
        assert result.score >= TAU_TABLE13  # Similar


@pytest.mark.parametrize(("first", "second"), [(REVERSAL_1, REVERSAL_2), (AUTHORS_1, AUTHORS_2)])
def test_table13_verdicts_of_the_default_with_minilm(first: list[tuple[str, str, str]], second: list) -> None:
    enc = minilm()
    reversal = s3kg_score(first, second, encoder=enc)
    paraphrase = s3kg_score(PARAPHRASE, list(PARAPHRASE), encoder=enc)
    assert paraphrase.score == pytest.approx(1.0)
    assert reversal.score < TAU_TABLE13 <= paraphrase.score  # Not Similar / Similar, as Table 13
    assert reversal.score < 0.65  # well below the threshold, not at its edge
