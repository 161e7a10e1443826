"""Max F1, AUROC, bootstrap, correlations and CUS against hand-computed values."""

from __future__ import annotations

import pytest

from scoring.bench import auroc, blend_sweep, max_f1
from scoring.cus import aggregate_cus, cus_item
from scoring.stats import bootstrap_ci, mean, pearson, spearman

SCORES = [0.9, 0.8, 0.7, 0.6, 0.5, 0.4]
LABELS = [1, 1, 0, 1, 0, 0]


def test_max_f1_on_six_scores() -> None:
    # Threshold 0.6 predicts the top four: TP 3, FP 1, FN 0 -> P 0.75, R 1, F1 = 1.5 / 1.75 = 6/7.
    # (0.9: 0.5; 0.8: 0.8; 0.7: 2/3; 0.5: 0.75; 0.4: 2/3.)
    result = max_f1(SCORES, LABELS)
    assert result.f1 == pytest.approx(6 / 7)
    assert result.threshold == 0.6
    assert result.precision == pytest.approx(0.75)
    assert result.recall == pytest.approx(1.0)


def test_auroc_on_six_scores() -> None:
    # Positives 0.9, 0.8, 0.6 against negatives 0.7, 0.5, 0.4: 3 + 3 + 2 of 9 pairs ordered right.
    assert auroc(SCORES, LABELS) == pytest.approx(8 / 9)
    assert auroc([0.5, 0.5], [1, 0]) == pytest.approx(0.5)  # a tie counts one half
    assert auroc([0.1, 0.2], [1, 1]) is None


def test_blend_sweep_by_hand() -> None:
    # Two parts that each rank one pair wrongly, and whose blend at 0.5 ranks every pair right.
    labels = [1, 1, 0, 0]
    structural = [0.9, 0.2, 0.5, 0.1]  # alone: 0.9 and 0.2 against 0.5 and 0.1 -> 3 of 4 pairs in order
    semantic = [0.3, 0.8, 0.4, 0.6]  # alone: 0.3 loses to both negatives -> 2 of 4
    sweep = blend_sweep(structural, semantic, labels, alphas=(0.0, 0.5, 1.0))
    assert sweep.auroc == {0.0: 0.5, 0.5: 1.0, 1.0: 0.75}
    assert (sweep.best_alpha, sweep.best_auroc) == (0.5, 1.0)


def test_blend_sweep_clips_as_s3kg_step_5_does() -> None:
    # S3KG's blend is clipped to [0, 1]: two negative sentence cosines both blend to 0 at alpha 0 and tie (0.5),
    # where the unclipped sums would order them (1.0).
    sweep = blend_sweep([0.0, 0.0], [-0.2, -0.5], [1, 0], alphas=(0.0,))
    assert sweep.auroc == {0.0: 0.5}


def test_blend_sweep_refuses_parts_of_other_lengths() -> None:
    with pytest.raises(ValueError):
        blend_sweep([0.1, 0.2], [0.3], [0, 1])


def test_max_f1_without_positives() -> None:
    assert max_f1([0.3, 0.2], [0, 0]).f1 == 0.0


def test_harmonic_mean_by_hand() -> None:
    assert cus_item(0.6, 0.3) == pytest.approx(2 * 0.18 / 0.9)  # 0.4
    assert cus_item(0.0, 0.0) == 0.0
    assert cus_item(0.0, 0.7) == 0.0


def test_bootstrap_is_deterministic_and_brackets_the_mean() -> None:
    values = [0.1, 0.4, 0.35, 0.8, 0.2, 0.55, 0.6]
    first = bootstrap_ci(values, seed=7)
    assert bootstrap_ci(values, seed=7) == first
    assert bootstrap_ci(values, seed=8) != first
    assert first[0] < mean(values) < first[1]
    assert bootstrap_ci([0.3]) == (0.3, 0.3)


def test_aggregate_cus() -> None:
    items = [(0.6, 0.3), (0.5, 0.5), (0.2, 0.8)]
    agg = aggregate_cus(items, seed=1)
    assert agg["n"] == 3
    assert agg["goldsim"]["mean"] == pytest.approx((0.6 + 0.5 + 0.2) / 3)
    assert agg["ctxsim"]["mean"] == pytest.approx((0.3 + 0.5 + 0.8) / 3)
    assert agg["cus"]["mean"] == pytest.approx((0.4 + 0.5 + 0.32) / 3)  # 2*.16/1.0 = 0.32
    lo, hi, mid = agg["cus"]["lo"], agg["cus"]["hi"], agg["cus"]["mean"]
    assert lo is not None and hi is not None and mid is not None and lo <= mid <= hi
    assert aggregate_cus(items, seed=1) == agg
    assert aggregate_cus([])["cus"]["mean"] is None


def test_correlations_by_hand() -> None:
    assert pearson([1, 2, 3], [2, 4, 7]) == pytest.approx(0.9934, abs=1e-4)  # 5 / sqrt(2 * 12.667)
    assert spearman([1, 2, 3], [2, 4, 7]) == pytest.approx(1.0)
    assert spearman([1, 2, 2, 3], [1, 3, 2, 4]) == pytest.approx(0.9487, abs=1e-4)  # ranks 1,2.5,2.5,4
    assert pearson([1, 1, 1], [1, 2, 3]) is None
    assert pearson([1], [2]) is None
