"""Krippendorff's alpha, correlation intervals and the paired tests of scoring.stats, against hand-computed values."""

from __future__ import annotations

import math

import pytest

from scoring.stats import (
    Estimate,
    binomial_two_sided,
    bootstrap_statistic,
    correlation_estimate,
    finite_or_none,
    krippendorff_alpha,
    mcnemar_exact,
    paired_comparison,
    pearson,
    sign_test,
    spearman,
)

N = None
# Krippendorff (2011), "Computing Krippendorff's Alpha-Reliability", the worked example with missing values:
# four observers A-D, twelve units, values 1-5.
KRIPPENDORFF_2011 = [
    [1, 2, 3, 3, 2, 1, 4, 1, 2, N, N, N],  # A
    [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, N, 3],  # B
    [N, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, N],  # C
    [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, N],  # D
]
# Derivation shared by the three levels. Unit 12 holds one value (B's 3) and is not pairable; the other eleven hold
# n = 3+4+4+4+4+4+4+4+4+3+2 = 40 pairable values: n_1 = 9, n_2 = 13, n_3 = 10, n_4 = 5, n_5 = 3.
# Only units 2 {2,2,2,3}, 6 {1,2,3,4} and 8 {1,1,1,2} hold different values (m_u = 4, so each ordered pair of
# values weighs 1/3 in the coincidence matrix): unit 2 and unit 8 give 6 ordered disagreeing pairs each (2-3 and 1-2),
# unit 6 gives all 12 ordered pairs of {1,2,3,4}.
# alpha = 1 - (n - 1) * sum_ck o_ck d_ck / sum_ck n_c n_k d_ck.


def test_krippendorff_2011_nominal() -> None:
    # Observed: (6 + 12 + 6) / 3 = 8 disagreeing coincidences. Expected: sum_{c != k} n_c n_k = n^2 - sum n_c^2
    # = 1600 - (81 + 169 + 100 + 25 + 9) = 1216. alpha = 1 - 39 * 8 / 1216 = 1 - 312/1216 = 113/152 = 0.7434.
    # The paper publishes 0.743.
    assert krippendorff_alpha(KRIPPENDORFF_2011, "nominal") == pytest.approx(113 / 152)
    assert round(krippendorff_alpha(KRIPPENDORFF_2011, "nominal"), 3) == 0.743


def test_krippendorff_2011_interval() -> None:
    # d = (c - k)^2. Observed: unit 2: 6 * 1 / 3 = 2; unit 8: 6 * 1 / 3 = 2; unit 6: the six pairs of {1,2,3,4}
    # give 1+4+9+1+4+1 = 20, twice ordered = 40, / 3 -> 40/3. Sum 52/3.
    # Expected, over c < k of n_c n_k (c - k)^2: 117 + 360 + 405 + 432 + 130 + 260 + 351 + 50 + 120 + 15 = 2240,
    # ordered 4480. alpha = 1 - 39 * (52/3) / 4480 = 1 - 676/4480 = 951/1120 = 0.8491. Published: 0.849.
    assert krippendorff_alpha(KRIPPENDORFF_2011, "interval") == pytest.approx(951 / 1120)
    assert round(krippendorff_alpha(KRIPPENDORFF_2011, "interval"), 3) == 0.849


def test_krippendorff_2011_ordinal() -> None:
    # d = (sum_{g=c..k} n_g - (n_c + n_k) / 2)^2 with n = (9, 13, 10, 5, 3):
    #   d12 = (22 - 11)^2 = 121,    d13 = (32 - 9.5)^2 = 506.25, d14 = (37 - 7)^2 = 900,  d15 = (40 - 6)^2 = 1156,
    #   d23 = (23 - 11.5)^2 = 132.25, d24 = (28 - 9)^2 = 361,    d25 = (31 - 8)^2 = 529,  d34 = (15 - 7.5)^2 = 56.25,
    #   d35 = (18 - 6.5)^2 = 132.25, d45 = (8 - 4)^2 = 16.
    # Observed: unit 2: 6 * 132.25 / 3 = 264.5; unit 8: 6 * 121 / 3 = 242; unit 6: 2 * (121 + 506.25 + 900 +
    # 132.25 + 361 + 56.25) / 3 = 2 * 2076.75 / 3 = 1384.5. Sum 1891.
    # Expected, over c < k of n_c n_k d_ck: 14157 + 45562.5 + 40500 + 31212 + 17192.5 + 23465 + 20631 + 2812.5
    # + 3967.5 + 240 = 199740, ordered 399480.
    # alpha = 1 - 39 * 1891 / 399480 = 1 - 73749/399480 = 0.815388. Published: 0.815.
    assert krippendorff_alpha(KRIPPENDORFF_2011, "ordinal") == pytest.approx(1 - 39 * 1891 / 399480)
    assert round(krippendorff_alpha(KRIPPENDORFF_2011, "ordinal"), 3) == 0.815


def test_alpha_tiny_nominal_case() -> None:
    # Units (1,1), (1,2), (2,2), (2,2): o_11 = 2, o_12 = o_21 = 1, o_22 = 4; n_1 = 3, n_2 = 5, n = 8.
    # alpha = 1 - 7 * 2 / (2 * 3 * 5) = 1 - 14/30 = 8/15.
    assert krippendorff_alpha([[1, 1, 2, 2], [1, 2, 2, 2]], "nominal") == pytest.approx(8 / 15)
    # A unit with one value is not pairable and changes nothing; string labels work as well as numbers.
    labels: list[list[str | None]] = [["a", "a", "b", "b", "a"], ["a", "b", "b", "b", None]]
    assert krippendorff_alpha(labels, "nominal") == pytest.approx(8 / 15)


def test_alpha_tiny_interval_case() -> None:
    # Units (1,1), (2,2), (3,4): n_1 = n_2 = 2, n_3 = n_4 = 1, n = 6; observed o_34 + o_43 = 2 (d = 1).
    # Expected over c < k: (1,2) 4*1 + (1,3) 2*4 + (1,4) 2*9 + (2,3) 2*1 + (2,4) 2*4 + (3,4) 1*1 = 41, ordered 82.
    # alpha = 1 - 5 * 2 / 82 = 36/41.
    assert krippendorff_alpha([[1, 2, 3], [1, 2, 4]], "interval") == pytest.approx(36 / 41)


def test_alpha_bounds_and_undefined() -> None:
    assert krippendorff_alpha([[1, 2, 3], [1, 2, 3]], "ordinal") == 1.0
    # Two units (1,2), (2,1): o_12 = o_21 = 2, n_1 = n_2 = 2: alpha = 1 - 3 * 4 / 8 = -0.5 (systematic disagreement).
    assert krippendorff_alpha([[1, 2], [2, 1]], "nominal") == pytest.approx(-0.5)
    # No variation at all: D_e = 0, alpha is 0/0 -> NaN (documented), never a number that looks like agreement.
    assert math.isnan(krippendorff_alpha([[3, 3, 3], [3, 3, None]], "interval"))


def test_alpha_rejects_bad_input() -> None:
    with pytest.raises(ValueError, match="unknown level"):
        krippendorff_alpha([[1, 2], [1, 2]], "ratio")
    with pytest.raises(ValueError, match="no pairable unit"):
        krippendorff_alpha([[1, None], [None, 2]], "nominal")
    with pytest.raises(ValueError, match="no pairable unit"):
        krippendorff_alpha([[1, 2, 3]], "nominal")  # one rater
    with pytest.raises(ValueError):
        krippendorff_alpha([[1, 2], [1]], "nominal")
    with pytest.raises(ValueError, match="numbers"):
        krippendorff_alpha([["a", "b"], ["a", "a"]], "interval")
    with pytest.raises(ValueError, match="NaN"):
        krippendorff_alpha([[1.0, math.nan], [1.0, 2.0]], "interval")


def test_bootstrap_statistic_skips_undefined_resamples() -> None:
    values = [1.0, 2.0, 3.0, 4.0]

    def mean_or_none(idx: object) -> float | None:
        sample = [values[i] for i in idx]  # type: ignore[attr-defined]
        return None if 4.0 not in sample else sum(sample) / len(sample)

    interval = bootstrap_statistic(4, mean_or_none, n_boot=400, seed=3)
    assert interval is not None
    # P(4 missing from a resample of 4) = (3/4)^4 = 0.32: about 128 of 400 are left out.
    assert 80 < interval.n_undefined < 180
    assert 1.0 <= interval.low <= interval.high <= 4.0
    assert bootstrap_statistic(3, lambda idx: None, n_boot=10) is None


def test_pearson_with_fisher_interval_by_hand() -> None:
    # x = 1..5, y = 2,4,5,4,5: dx = -2,-1,0,1,2; dy = -2,0,1,0,1; sum dxdy = 6, sum dx^2 = 10, sum dy^2 = 6:
    # r = 6 / sqrt(60) = 0.774597. z = atanh(r) = 1.031718, se = 1/sqrt(5 - 3) = 0.707107, q = 1.959964:
    # interval tanh(1.031718 -+ 1.385929) = tanh(-0.354211), tanh(2.417647) = (-0.340, 0.984).
    est = correlation_estimate([1, 2, 3, 4, 5], [2, 4, 5, 4, 5])
    assert est.value == pytest.approx(6 / math.sqrt(60))
    assert est.low == pytest.approx(-0.3401, abs=1e-4)
    assert est.high == pytest.approx(0.9842, abs=1e-4)
    assert est.n == 5


def test_spearman_interval_uses_the_wider_standard_error() -> None:
    # Ranks of y = 2,4,5,4,5 are 1, 2.5, 4.5, 2.5, 4.5: deviations -2, -0.5, 1.5, -0.5, 1.5 against -2..2 give
    # sum dxdy = 7, sum dy^2 = 9: rho = 7 / sqrt(10 * 9) = 0.7379; se = sqrt(1.06 / (5 - 3)).
    est = correlation_estimate([1, 2, 3, 4, 5], [2, 4, 5, 4, 5], method="spearman")
    assert est.value == pytest.approx(7 / math.sqrt(90))
    assert est.value is not None and est.low is not None and est.high is not None
    z, se = math.atanh(est.value), math.sqrt(1.06 / 2)
    assert est.low == pytest.approx(math.tanh(z - 1.959964 * se), abs=1e-6)
    assert est.high == pytest.approx(math.tanh(z + 1.959964 * se), abs=1e-6)


def test_correlation_edge_cases_are_none_not_nan() -> None:
    constant = correlation_estimate([1, 2, 3, 4], [5, 5, 5, 5])
    assert constant.value is None and constant.reason
    short = correlation_estimate([1, 2, 3], [1, 3, 2])
    assert short.value == pytest.approx(0.5) and short.low is None and short.reason
    perfect = correlation_estimate([1, 2, 3, 4], [2, 4, 6, 8])
    assert (perfect.value, perfect.low, perfect.high) == (1.0, 1.0, 1.0)


def test_exact_binomial_tests_by_hand() -> None:
    # 1 of 6 discordant pairs for A: 2 * (C(6,0) + C(6,1)) / 2^6 = 14/64.
    assert mcnemar_exact(1, 5) == pytest.approx(14 / 64)
    assert mcnemar_exact(0, 6) == pytest.approx(2 / 64)
    assert mcnemar_exact(3, 3) == 1.0  # 2 * 42/64 > 1, capped
    assert mcnemar_exact(0, 0) == 1.0
    # Differences 0.5, 0.25, -0.25, 0, 0.5, 0.75: the zero is dropped, 4 of 5 positive: 2 * (1 + 5) / 32 = 0.375.
    assert sign_test([0.5, 0.25, -0.25, 0.0, 0.5, 0.75]) == pytest.approx(0.375)
    assert binomial_two_sided(2, 4) == 1.0
    with pytest.raises(ValueError):
        binomial_two_sided(5, 4)


def test_paired_comparison_on_shared_items() -> None:
    a = {"q1": 1, "q2": 1, "q3": 0, "q4": 1}
    b = {"q1": 0, "q2": 1, "q3": 0, "q5": 1}
    result = paired_comparison(a, b, seed=1)
    # Shared q1..q3: differences 1, 0, 0 -> mean 1/3; one discordant pair for A: McNemar 2 * 1/2 = 1 (capped).
    assert result.n_shared == 3 and result.only_a == 1 and result.only_b == 1
    assert result.mean_a == pytest.approx(2 / 3) and result.mean_b == pytest.approx(1 / 3)
    assert result.difference.value == pytest.approx(1 / 3)
    assert result.test == "mcnemar_exact" and result.p_value == 1.0
    assert (result.a_higher, result.b_higher) == (1, 0)
    assert result.difference.low is not None and result.difference.high is not None
    assert 0.0 <= result.difference.low <= 1 / 3 <= result.difference.high <= 1.0


def test_paired_comparison_of_graded_scores_uses_the_sign_test() -> None:
    a = dict(enumerate([1.0, 0.75, 0.5, 1.0, 0.75, 1.0]))
    b = dict(enumerate([0.5, 0.5, 0.75, 1.0, 0.25, 0.25]))
    result = paired_comparison(a, b)
    # Differences 0.5, 0.25, -0.25, 0, 0.5, 0.75: mean 1.75 / 6; sign test as above, 0.375.
    assert result.test == "sign_test"
    assert result.difference.value == pytest.approx(1.75 / 6)
    assert result.p_value == pytest.approx(0.375)
    assert paired_comparison({"x": 1.0}, {"y": 0.0}).difference == Estimate(None, reason="no shared item")


def test_finite_or_none() -> None:
    assert finite_or_none(math.nan) is None
    assert finite_or_none(math.inf) is None
    assert finite_or_none(None) is None
    assert finite_or_none(0.5) == 0.5


def test_correlation_with_a_nan_is_none() -> None:
    # numpy's NaN arithmetic met min/max clipping in pearson and came out as r = 1.0; now it is None.
    est = correlation_estimate([1.0, 2.0, math.nan, 4.0], [1.0, 2.0, 3.0, 4.0])
    assert est.value is None and est.reason
    assert pearson([1.0, 2.0, math.nan], [1.0, 2.0, 3.0]) is None
    assert spearman([1.0, 2.0, math.nan], [1.0, 2.0, 3.0]) is None


def test_paired_comparison_treats_missing_scores_as_not_shared() -> None:
    result = paired_comparison({"q1": 1.0, "q2": math.nan, "q3": None}, {"q1": 0.0, "q2": 1.0, "q3": 1.0})
    assert result.n_shared == 1 and result.only_a == 0 and result.only_b == 2
    assert result.difference.value == 1.0


def test_estimate_never_holds_nan() -> None:
    est = Estimate(math.nan, 0.1, math.inf, n=3)
    assert (est.value, est.low, est.high) == (None, 0.1, None)
    assert est.reason == "value was not finite (nan)"
    assert est.as_json() == {"value": None, "low": 0.1, "high": None, "n": 3, "reason": "value was not finite (nan)"}
    assert Estimate(0.5, 0.4, 0.6, n=9).as_json()["reason"] is None
