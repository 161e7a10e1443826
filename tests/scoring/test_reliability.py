"""Kappa, ICC, judge-against-people and test-retest figures of scoring.reliability, against hand-computed values."""

from __future__ import annotations

import math

import pytest

from scoring.reliability import (
    QUARTER_SCALE,
    alpha_estimate,
    cohen_kappa,
    compare_to_reference,
    confusion_matrix,
    flag_raters,
    icc,
    icc_estimate,
    kappa_estimate,
    retest_agreement,
    weighted_kappa,
)
from tests.scoring.test_stats_agreement import KRIPPENDORFF_2011

# Shrout & Fleiss (1979), Table 2: six targets (rows) rated by four judges (columns).
SHROUT_FLEISS = [[9, 2, 5, 8], [6, 1, 3, 2], [8, 4, 6, 8], [7, 1, 2, 6], [10, 5, 6, 9], [6, 2, 4, 7]]
BY_JUDGE = [list(column) for column in zip(*SHROUT_FLEISS, strict=True)]


def test_cohen_kappa_by_hand() -> None:
    # Agree on 4 of 6: p_o = 2/3; each rater says 1 three times: p_e = 0.5 * 0.5 + 0.5 * 0.5 = 0.5.
    # kappa = (2/3 - 1/2) / (1/2) = 1/3.
    a, b = [1, 1, 0, 0, 1, 0], [1, 0, 0, 0, 1, 1]
    assert cohen_kappa(a, b) == pytest.approx(1 / 3)
    assert math.isnan(cohen_kappa([1, 1], [1, 1]))


def test_weighted_kappa_by_hand() -> None:
    # Scale (0, 0.5, 1), linear weights 0, 1/2, 1. Pairs (0,0), (0.5,1), (1,1), (1,0.5): sum w O = 2 * 0.5/4 = 0.25.
    # Marginals (1/4, 1/4, 1/2) on both sides: sum w E = 2 * (0.5/16 + 1/8 + 0.5/8) = 14/32.
    # kappa_w = 1 - 0.25 / (14/32) = 3/7.
    a, b = [0, 0.5, 1, 1], [0, 1, 1, 0.5]
    assert weighted_kappa(a, b, (0, 0.5, 1)) == pytest.approx(3 / 7)
    # Quadratic weights 0, 1/4, 1: sum w O = 2 * 0.25/4 = 0.125; sum w E = 2 * (0.25/16 + 1/8 + 0.25/8) = 11/32.
    assert weighted_kappa(a, b, (0, 0.5, 1), "quadratic") == pytest.approx(1 - 0.125 / (11 / 32))


def test_confusion_matrix() -> None:
    m = confusion_matrix([1, 1, 0, 0, 1, 0], [1, 0, 0, 0, 1, 1])
    assert m.categories == (0, 1)
    assert m.counts == ((2, 1), (1, 2))  # rows: the reference
    assert confusion_matrix(["b"], ["a"], ["a", "b", "c"]).counts == ((0, 0, 0), (1, 0, 0), (0, 0, 0))
    with pytest.raises(ValueError, match="outside"):
        confusion_matrix([0.3], [0.25], QUARTER_SCALE)


def test_icc_against_shrout_and_fleiss_1979() -> None:
    # Mean squares by hand: grand mean 127/24; BMS = 4 * sum (row mean - grand)^2 / 5 = 1349/120 = 11.24;
    # JMS = 6 * sum (column mean - grand)^2 / 3 = 2339/72 = 32.49; WMS = (SST - SSB) / 18 = 451/72 = 6.26;
    # EMS = (SST - SSB - SSJ) / 15 = 367/360 = 1.02 (Shrout & Fleiss's Table 3: 11.24, 32.49, 6.26, 1.02).
    # ICC(1,1) = (BMS - WMS) / (BMS + 3 WMS) = 448/2703 = 0.17;
    # ICC(2,1) = (BMS - EMS) / (BMS + 3 EMS + 4 (JMS - EMS) / 6) = 184/635 = 0.29;
    # ICC(3,1) = (BMS - EMS) / (BMS + 3 EMS) = 920/1287 = 0.71. The paper publishes .17, .29 and .71.
    assert icc(BY_JUDGE, "1,1") == pytest.approx(448 / 2703)
    assert icc(BY_JUDGE, "2,1") == pytest.approx(184 / 635)
    assert icc(BY_JUDGE, "3,1") == pytest.approx(920 / 1287)


def test_icc_absolute_agreement_counts_a_shift_against_the_judge() -> None:
    # Second occasion = first + 0.25 throughout. Targets' means 0.125, 0.625, 1.125 (grand 0.625): BMS = 2 * 0.5 / 2
    # = 0.5; occasions' means 0.5, 0.75: JMS = 3 * 0.03125 = 0.09375; SST = 1.09375, so EMS = 0.
    # ICC(2,1) = 0.5 / (0.5 + 0 + 2 * 0.09375 / 3) = 8/9; ICC(3,1) = 0.5 / 0.5 = 1.
    ratings = [[0.0, 0.5, 1.0], [0.25, 0.75, 1.25]]
    assert icc(ratings, "2,1") == pytest.approx(8 / 9)
    assert icc(ratings, "3,1") == pytest.approx(1.0)
    assert math.isnan(icc([[1.0, 1.0], [1.0, 1.0]]))
    with pytest.raises(ValueError):
        icc([[1.0, 2.0]])


def test_estimates_carry_none_and_a_reason_instead_of_nan() -> None:
    assert alpha_estimate([[2, 2], [2, 2]], "nominal").value is None
    assert alpha_estimate([[2, 2], [2, 2]], "nominal").reason
    assert (
        alpha_estimate([[1, None], [None, 2]], "nominal").reason
        == "no pairable unit (every unit has fewer than two values)"
    )
    assert kappa_estimate([1, 1, 1], [1, 1, 1]).value is None
    assert icc_estimate([[1.0, 1.0], [1.0, 1.0]]).value is None
    assert icc_estimate([[1.0], [1.0]]).value is None


def test_alpha_estimate_brackets_the_worked_example() -> None:
    est = alpha_estimate(KRIPPENDORFF_2011, "nominal", n_boot=300, seed=2)
    assert est.value == pytest.approx(113 / 152)
    assert est.n == 11  # unit 12 is not pairable
    assert est.value is not None and est.low is not None and est.high is not None
    assert est.low < est.value <= est.high <= 1.0
    assert alpha_estimate(KRIPPENDORFF_2011, "nominal", n_boot=300, seed=2) == est  # deterministic


def test_kappa_and_icc_estimates_bracket_their_value() -> None:
    a = [1, 1, 0, 0, 1, 0, 1, 1, 0, 1]
    b = [1, 0, 0, 0, 1, 1, 1, 1, 0, 1]
    est = kappa_estimate(a, b, n_boot=300)
    assert est.value == pytest.approx(cohen_kappa(a, b))
    assert est.value is not None and est.low is not None and est.high is not None
    assert est.low <= est.value <= est.high
    graded = icc_estimate(BY_JUDGE, "2,1", n_boot=300)
    assert graded.value == pytest.approx(184 / 635)
    assert graded.value is not None and graded.low is not None and graded.high is not None
    assert graded.low <= graded.value <= graded.high


def test_judge_against_people_on_lav() -> None:
    human = {1: 1, 2: 0, 3: 1, 4: 0, 5: 1, 6: 0}
    judge = {1: 1, 2: 0, 3: 0, 4: 0, 5: 1, 6: 1, 7: 1}  # item 7 has no human label: left out
    result = compare_to_reference(human, judge, scale="nominal", n_boot=200)
    assert result.n == 6
    assert result.kappa.value == pytest.approx(1 / 3)  # as in test_cohen_kappa_by_hand
    # On 0/1 labels Pearson's r is the phi coefficient: (2 * 2 - 1 * 1) / sqrt(3 * 3 * 3 * 3) = 1/3.
    assert result.pearson.value == pytest.approx(1 / 3)
    assert result.confusion is not None and result.confusion.counts == ((2, 1), (1, 2))
    assert result.disagreements == (3, 6)
    assert result.exact_agreement == pytest.approx(4 / 6)


def test_judge_against_people_on_an_ordinal_scale() -> None:
    human = {"a": 0, "b": 0.5, "c": 1, "d": 1}
    judge = {"a": 0, "b": 1, "c": 1, "d": 0.5}
    result = compare_to_reference(human, judge, scale="ordinal", categories=(0, 0.5, 1), n_boot=200)
    assert result.kappa.value == pytest.approx(3 / 7)  # as in test_weighted_kappa_by_hand
    assert result.disagreements == ("b", "d")


def test_embedding_metric_against_people() -> None:
    human = {"a": 0.0, "b": 0.5, "c": 1.0, "d": 1.0}
    ass = {"a": 0.1, "b": 0.9, "c": 0.95, "d": 0.6}
    result = compare_to_reference(human, ass, scale="continuous")
    # dx = -0.625, -0.125, 0.375, 0.375; dy = -0.5375, 0.2625, 0.3125, -0.0375: sum dxdy = 0.40625,
    # sum dx^2 = 0.6875, sum dy^2 = 0.456875: r = 0.40625 / sqrt(0.6875 * 0.456875) = 0.7249.
    assert result.pearson.value == pytest.approx(0.40625 / math.sqrt(0.6875 * 0.456875))
    assert result.pearson.low is not None  # n = 4: the Fisher interval exists
    assert result.kappa.value is None and result.confusion is None
    assert result.disagreements == ("b", "d")  # |difference| above 0.25


def test_retest_agreement() -> None:
    first = {"a": 0.0, "b": 0.5, "c": 1.0}
    second = {"a": 0.25, "b": 0.75, "c": 1.25, "z": 0.0}
    shifted = retest_agreement(first, second, scale="continuous", n_boot=200)
    assert shifted.n == 3
    assert shifted.icc.value == pytest.approx(8 / 9)  # as in test_icc_absolute_agreement_counts_a_shift...
    assert shifted.changed == ("a", "b", "c")
    same = retest_agreement(
        {"a": 0, "b": 0.5, "c": 1, "d": 0.75}, {"a": 0, "b": 0.5, "c": 1, "d": 0.75}, scale="ordinal"
    )
    assert same.kappa.value == pytest.approx(1.0) and same.icc.value == pytest.approx(1.0) and same.changed == ()
    verdicts = retest_agreement({"a": 1, "b": 0, "c": 1}, {"a": 1, "b": 1, "c": 1}, scale="nominal")
    assert verdicts.icc.value is None and verdicts.changed == ("b",)
    assert verdicts.exact_agreement == pytest.approx(2 / 3)


def test_flag_raters() -> None:
    flags = flag_raters({"gpt-4": 0.81, "haiku": 0.55, "gemma": None, "edge": 0.6}, threshold=0.6)
    assert set(flags) == {"haiku", "gemma"}
    assert "0.550" in flags["haiku"] and "unknown" in flags["gemma"]


def test_nan_counts_as_no_value_and_never_comes_out() -> None:
    human = {"a": 0.0, "b": 0.5, "c": 1.0, "d": 1.0, "e": math.nan}
    ass = {"a": 0.1, "b": math.nan, "c": 0.95, "d": 0.6, "e": 0.2}
    result = compare_to_reference(human, ass, scale="continuous")
    assert result.n == 3  # b and e dropped
    assert result.pearson.value is not None and math.isfinite(result.pearson.value)


@pytest.mark.parametrize("level", ["nominal", "ordinal", "interval"])
def test_alpha_resampler_equals_krippendorff_alpha_on_resamples(level: str) -> None:
    """The fast bootstrap statistic of alpha_estimate gives krippendorff_alpha's value on the worked example and on
    random resamples of it (units drawn several times, values absent from a resample)."""
    import numpy as np

    from scoring.reliability import alpha_resampler
    from scoring.stats import krippendorff_alpha

    units = [u for u in zip(*KRIPPENDORFF_2011, strict=True) if sum(v is not None for v in u) >= 2]
    statistic = alpha_resampler(units, level)
    assert statistic(np.arange(len(units))) == pytest.approx(krippendorff_alpha(KRIPPENDORFF_2011, level))
    rng = np.random.default_rng(5)
    for _ in range(50):
        idx = rng.integers(0, len(units), size=len(units))
        expected = krippendorff_alpha([list(r) for r in zip(*[units[i] for i in idx], strict=True)], level)
        got = statistic(idx)
        assert (math.isnan(got) and math.isnan(expected)) or got == pytest.approx(expected, abs=1e-12)
    same = alpha_resampler([(2, 2), (2, 2, None)], level)
    assert math.isnan(same(np.array([0, 1])))
