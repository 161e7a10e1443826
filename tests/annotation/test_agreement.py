"""Agreement statistics against values computed by hand (the computation is in each test's comment)."""

import math

import pytest

from annotation.agreement import (
    alignment_prf,
    cohen_kappa,
    fleiss_kappa,
    format_table2,
    kea_exact_align,
    majority_pairs,
    mean_pairwise_f1,
    pairwise_f1,
    table2,
    weighted_kappa,
)


def test_agreement_cohen_kappa_on_a_2x2_table() -> None:
    # Table (a rows, b columns): yes/yes 4, yes/no 1, no/yes 2, no/no 3; n = 10.
    # p_o = 7/10 = 0.7; a says yes 5 times, b 6: p_e = (5*6 + 5*4) / 100 = 0.5; kappa = 0.2 / 0.5 = 0.4.
    a = ["y"] * 4 + ["y"] + ["n"] * 2 + ["n"] * 3
    b = ["y"] * 4 + ["n"] + ["y"] * 2 + ["n"] * 3
    assert cohen_kappa(a, b) == pytest.approx(0.4)


def test_agreement_cohen_kappa_on_three_categories() -> None:
    # Agreement at positions 1, 3, 4, 5: p_o = 4/6. Marginals a: x2 y2 z2, b: x2 y3 z1:
    # p_e = (2*2 + 2*3 + 2*1) / 36 = 1/3; kappa = (2/3 - 1/3) / (2/3) = 0.5.
    a = ["x", "x", "y", "y", "z", "z"]
    b = ["x", "y", "y", "y", "z", "x"]
    assert cohen_kappa(a, b) == pytest.approx(0.5)


def test_agreement_cohen_kappa_is_undefined_when_chance_agreement_is_total() -> None:
    assert math.isnan(cohen_kappa([1, 1, 1], [1, 1, 1]))
    with pytest.raises(ValueError):
        cohen_kappa([1, 0], [1])


def test_agreement_fleiss_kappa_on_a_4x3_table() -> None:
    # 3 raters. P_i = (sum n_ij^2 - 3) / 6: 1, 1, 0, (4 + 1 - 3)/6 = 1/3; P_bar = (7/3) / 4 = 7/12.
    # Column shares 6/12, 5/12, 1/12: P_e = (36 + 25 + 1) / 144 = 31/72.
    # kappa = (7/12 - 31/72) / (1 - 31/72) = (11/72) / (41/72) = 11/41 = 0.268293.
    table = [[3, 0, 0], [0, 3, 0], [1, 1, 1], [2, 1, 0]]
    assert fleiss_kappa(table) == pytest.approx(11 / 41)
    with pytest.raises(ValueError):
        fleiss_kappa([[3, 0], [1, 1]])


def test_agreement_weighted_kappa_linear_and_quadratic() -> None:
    # Scale (0, 0.5, 1). Pairs (0,0) (0.5,1) (1,1) (1,0.5): O = 1/4 in cells (0,0) (1,2) (2,2) (2,1).
    # Linear w = |i-j|/2: sum w O = 0.5/4 + 0.5/4 = 0.25. Marginals a = b = (1/4, 1/4, 1/2):
    # sum w E = (0.5*1 + 1*2 + 0.5*1 + 0.5*2 + 1*2 + 0.5*2) / 16 = 7/16; kappa_w = 1 - 0.25/(7/16) = 3/7.
    # Quadratic w = (|i-j|/2)^2: sum w O = 0.125; sum w E = (0.25 + 2 + 0.25 + 0.5 + 2 + 0.5)/16 = 5.5/16;
    # kappa_w = 1 - 0.125 / (5.5/16) = 1 - 4/11 = 7/11.
    a = [0, 0.5, 1, 1]
    b = [0, 1, 1, 0.5]
    assert weighted_kappa(a, b, categories=(0, 0.5, 1)) == pytest.approx(3 / 7)
    assert weighted_kappa(a, b, categories=(0, 0.5, 1), weights="quadratic") == pytest.approx(7 / 11)


def test_agreement_weighted_kappa_on_the_five_level_scale() -> None:
    # Default scale (0, .25, .5, .75, 1), linear w = |i-j|/4. Pairs (0,0) (1,1) (0.25,0.5) (0.75,0.75):
    # sum w O = (1/4) * (1/4) = 1/16. Marginals a: 0 .25 .75 1 at 1/4 each; b: 0 .5 .75 1 at 1/4 each.
    # sum w E = (1/16) * sum over a in {0,1,3,4}, b in {0,2,3,4} of |a-b|/4
    #         = (1/64) * [(0+2+3+4) + (1+1+2+3) + (3+1+0+1) + (4+2+1+0)] = 28/64;
    # kappa_w = 1 - (1/16)/(28/64) = 6/7.
    a = [0, 1, 0.25, 0.75]
    b = [0, 1, 0.5, 0.75]
    assert weighted_kappa(a, b) == pytest.approx(6 / 7)
    with pytest.raises(ValueError):
        weighted_kappa([0.3], [0.5])


def test_agreement_pairwise_f1_of_two_annotators() -> None:
    # |A & B| = 2, |A| = 3, |B| = 4: F1 = 4/7.
    a = {(0, 0), (1, 1), (2, 3)}
    b = {(0, 0), (1, 1), (2, 2), (3, 3)}
    assert pairwise_f1(a, b) == pytest.approx(4 / 7)
    assert pairwise_f1(set(), set()) == 1.0


def test_agreement_mean_pairwise_f1_of_three_annotators() -> None:
    # F1(A,B) = 1, F1(A,C) = F1(B,C) = 2*1/(2+1) = 2/3: mean = (1 + 4/3) / 3 = 7/9.
    a, b, c = {(0, 0), (1, 1)}, {(0, 0), (1, 1)}, {(0, 0)}
    assert mean_pairwise_f1([a, b, c]) == pytest.approx(7 / 9)
    assert majority_pairs([a, b, c]) == {(0, 0), (1, 1)}


def test_agreement_alignment_micro_and_macro_prf() -> None:
    # Item 1: pred {(0,0),(1,1)}, gold {(0,0),(1,2)}: tp 1, P = R = F1 = 1/2.
    # Item 2: pred {(0,0)}, gold {(0,0),(1,1),(2,2)}: tp 1, P = 1, R = 1/3, F1 = (2/3)/(4/3) = 1/2.
    # Micro: tp 2, 3 predicted, 5 gold: P = 2/3, R = 2/5, F1 = (8/15)/(16/15) = 1/2.
    # Macro: P = 3/4, R = (1/2 + 1/3)/2 = 5/12, F1 = 1/2.
    predicted = [{(0, 0), (1, 1)}, {(0, 0)}]
    gold = [{(0, 0), (1, 2)}, {(0, 0), (1, 1), (2, 2)}]
    prf = alignment_prf(predicted, gold)
    assert prf.micro_precision == pytest.approx(2 / 3)
    assert prf.micro_recall == pytest.approx(2 / 5)
    assert prf.micro_f1 == pytest.approx(0.5)
    assert prf.macro_precision == pytest.approx(0.75)
    assert prf.macro_recall == pytest.approx(5 / 12)
    assert prf.macro_f1 == pytest.approx(0.5)


def test_agreement_kea_exact_match_aligns_only_identical_components() -> None:
    answer = [
        ["Paris", "capital of", "France"],
        ["Eiffel Tower", "located in", "Paris"],
        ["Lyon", "in", "France"],
    ]
    gold = [["paris", "capital_of", "france "], ["eiffel tower", "in", "paris"]]
    # Only the first answer triplet equals a gold triplet after case folding, "_" as space and trimming.
    assert kea_exact_align(answer, gold) == {(0, 0)}


def test_agreement_table2_rows_in_paper_layout() -> None:
    consensus = [{(0, 0), (1, 1)}]
    rows = table2({"KEA": [{(0, 0)}], "TAU": [{(0, 0), (1, 1)}]}, consensus)
    assert [name for name, _ in rows] == ["KEA", "TAU"]
    # KEA: P = 1, R = 1/2, F1 = 2/3 (micro and macro alike with one item); TAU: all 1.
    assert rows[0][1].micro_f1 == pytest.approx(2 / 3)
    assert rows[1][1].macro_f1 == pytest.approx(1.0)
    text = format_table2(rows)
    assert text.splitlines()[0].split() == [
        "Method",
        "Micro",
        "P",
        "Micro",
        "R",
        "Micro",
        "F1",
        "Macro",
        "P",
        "Macro",
        "R",
        "Macro",
        "F1",
    ]
    assert "0.667" in text.splitlines()[1]
