"""CDK-E's arithmetic against values computed by hand from paper C's definitions."""

import pytest

from scoring.cdke.metrics import answer_correctness, fc_from_verdict, implied_fc, statement_f1

A1, A2 = "The bridge opened in 1931.", "The bridge is in Dunmore."
T1, T2 = "The bridge opened in 1931.", "The bridge was designed by Marta Kowal."


def test_fc_of_a_valid_verdict_by_hand() -> None:
    # TP 1 (A1), FP 1 (A2), FN 1 (T2): 1 / (1 + 0.5 * 2) = 0.5
    verdict = {"TP": [A1], "FP": [A2], "FN": [T2]}
    assert fc_from_verdict([A1, A2], [T1, T2], verdict) == 0.5


def test_statements_match_ignoring_case_and_spacing() -> None:
    verdict = {"TP": ["the  bridge opened in 1931. "], "FP": [], "FN": []}
    # TP 1, FP 1 (A2 left unclassified counts as FP), FN 0: 1 / (1 + 0.5) = 2/3
    assert fc_from_verdict([A1, A2], [T1], verdict) == pytest.approx(2 / 3)


def test_both_lists_empty_is_none_not_a_score() -> None:
    assert fc_from_verdict([], [], {"TP": [], "FP": [], "FN": []}) is None


def test_a_judge_that_invents_its_own_true_positive_is_refused() -> None:
    # Before: TP = 1 on two empty lists gave FC 1.0.
    with pytest.raises(ValueError, match="not one of the answer statements"):
        fc_from_verdict([], [], {"TP": ["Something the judge made up."], "FP": [], "FN": []})


def test_a_ground_truth_statement_moved_under_tp_of_an_empty_answer_is_refused() -> None:
    # Before: FC 1.0 for an empty answer.
    with pytest.raises(ValueError, match="not one of the answer statements"):
        fc_from_verdict([], [T1], {"TP": [T1], "FP": [], "FN": []})
    with pytest.raises(ValueError, match="not one of the answer statements"):
        fc_from_verdict([A2], [T2], {"TP": [T2], "FP": [], "FN": []})


def test_one_statement_listed_three_times_is_refused() -> None:
    # Before: TP 3, FN 1 gave 3 / 3.5 = 0.857 where TP 1, FN 1 allows at most 1 / 1.5 = 0.667.
    with pytest.raises(ValueError, match="classified already"):
        fc_from_verdict([A1], [T1, T2], {"TP": [A1, A1, A1], "FP": [], "FN": [T2]})
    with pytest.raises(ValueError, match="classified already"):
        fc_from_verdict([A1], [T1], {"TP": [A1], "FP": [A1], "FN": []})


def test_an_answer_statement_under_fn_or_a_wrong_key_is_refused() -> None:
    with pytest.raises(ValueError, match="not one of the ground-truth statements"):
        fc_from_verdict([A2], [T2], {"TP": [], "FP": [], "FN": [A2]})
    with pytest.raises(ValueError, match="exactly the keys"):
        fc_from_verdict([A1], [T1], {"TP": [A1], "FP": []})


def test_without_a_true_positive_every_ground_truth_statement_is_missed() -> None:
    # The judge says FN = [] for a wrong answer: nothing is covered without a TP, so FN = 2; FP 1:
    # 0 / (0 + 0.5 * 3) = 0.
    assert fc_from_verdict([A2], [T1, T2], {"TP": [], "FP": [A2], "FN": []}) == 0.0
    assert statement_f1(0, 0, 2) == 0.0


# Paper C, Table 2 (in %): ASS, AC by GPT-4 Turbo (γ) and AC by Claude 3 Haiku (κ).
TABLE2 = {
    "GPT-3.5 Turbo": (95.7, 76.1, 86.3),
    "GPT-4o": (97.1, 80.8, 88.2),
    "Llama 3 70B": (87.3, 52.2, 81.4),
    "Mixtral 8x7B": (92.1, 66.0, 81.0),
}


def test_table2_is_consistent_only_with_075_on_fc() -> None:
    # With w = 0.25 on FC: FC = 4 AC - 3 ASS. Llama 3 (γ): 4 * 52.2 - 3 * 87.3 = 208.8 - 261.9 = -53.1;
    # Mixtral (γ): 264.0 - 276.3 = -12.3: impossible for an F1.
    assert implied_fc(87.3, 52.2, 0.25) == pytest.approx(-53.1)
    assert implied_fc(92.1, 66.0, 0.25) == pytest.approx(-12.3)
    # With w = 0.75: FC = (AC - 0.25 ASS) / 0.75. GPT-3.5 (γ): (76.1 - 23.925) / 0.75 = 69.5667; Llama 3 (γ):
    # (52.2 - 21.825) / 0.75 = 40.5; GPT-4o (κ): (88.2 - 24.275) / 0.75 = 85.2333.
    assert implied_fc(95.7, 76.1, 0.75) == pytest.approx(69.5667, abs=1e-4)
    assert implied_fc(87.3, 52.2, 0.75) == pytest.approx(40.5)
    assert implied_fc(97.1, 88.2, 0.75) == pytest.approx(85.2333, abs=1e-4)
    implied = [implied_fc(ass, ac, 0.75) for ass, *acs in TABLE2.values() for ac in acs]
    assert all(40 <= fc <= 86 for fc in implied) and len(implied) == 8


def test_answer_correctness_by_hand() -> None:
    assert answer_correctness(0.8, 0.4, 0.75) == pytest.approx(0.25 * 0.8 + 0.75 * 0.4)  # 0.5
    assert answer_correctness(0.8, 0.4, 0.25) == pytest.approx(0.75 * 0.8 + 0.25 * 0.4)  # 0.7
