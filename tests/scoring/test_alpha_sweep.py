"""The alpha sweep's names and axis, and the paper's Table 4 beside it."""

from __future__ import annotations

import pytest

from scoring.alpha_sweep import (
    PAPER_TABLE4,
    SWEEP_ALPHAS,
    SweepPoint,
    paper_table4_curves,
    parse_sweep_method,
    sweep_curves,
    sweep_method_name,
)


def test_names_say_alpha_weights_the_kernel() -> None:
    assert sweep_method_name("s3kg_directed", 0.3) == "s3kg_directed@alpha_wl=0.3"
    assert parse_sweep_method("s3kg_directed@alpha_wl=0.3") == SweepPoint("s3kg_directed", 0.3, False)
    assert [sweep_method_name("s3kg", a) for a in SWEEP_ALPHAS[:3]] == [
        "s3kg@alpha_wl=0.0",
        "s3kg@alpha_wl=0.1",
        "s3kg@alpha_wl=0.2",
    ]
    assert len(SWEEP_ALPHAS) == 11 and SWEEP_ALPHAS[-1] == 1.0


def test_legacy_eq2_names_are_flipped_onto_the_same_axis() -> None:
    # Before similarity-benchmark@2 the paper's variants put alpha on the semantic score (Eq. 2):
    # "s3kg@alpha=0.3" weighted the kernel by 1 - 0.3 = 0.7.
    assert parse_sweep_method("s3kg@alpha=0.3") == SweepPoint("s3kg", 0.7, True)
    assert parse_sweep_method("s3kg@alpha=1.0") == SweepPoint("s3kg", 0.0, True)
    # s3kg_reference always weighted the kernel.
    assert parse_sweep_method("s3kg_reference@alpha=0.3") == SweepPoint("s3kg_reference", 0.3, False)
    for other in ("bleu", "s3kg", "s3kg@alpha=1.5", "s3kg@beta=0.3", "s3kg@alpha_wl="):
        assert parse_sweep_method(other) is None


def test_curves_by_variant_sorted_on_the_structural_axis() -> None:
    results: dict[str, float | None] = {"bleu": 0.5, "s3kg@alpha=0.0": 0.6, "s3kg@alpha=1.0": 0.65}
    results["s3kg@alpha_wl=0.5"] = 0.7
    results |= {"s3kg_directed@alpha_wl=1.0": 0.2, "s3kg_directed@alpha_wl=0.0": None}
    assert sweep_curves(results) == {
        ("s3kg", False): [(0.5, 0.7)],
        ("s3kg", True): [(0.0, 0.65), (1.0, 0.6)],
        ("s3kg_directed", False): [(1.0, 0.2)],
    }


def test_paper_table4_as_published() -> None:
    # Paper S, Table 4 (../shared/paper_figures.md): best F1 at alpha 0.3 (MRPC), 0.5 (PAWS-Wiki), 0.1 (STS12),
    # the best alphas of Table 1; the AUROC of the kernel alone (alpha = 1) drops on PAWS-Wiki and STS12.
    best = {name: SWEEP_ALPHAS[max(range(11), key=lambda i: f["f1"][i])] for name, f in PAPER_TABLE4.items()}
    assert best == {"MRPC": 0.3, "PAWS-Wiki": 0.5, "STS12": 0.1}
    curves = paper_table4_curves("auroc")
    assert curves["paper Table 4, PAWS-Wiki"][-1] == (1.0, 0.731)
    assert curves["paper Table 4, STS12"][0] == (0.0, 0.828)
    assert paper_table4_curves("f1")["paper Table 4, MRPC"][3] == pytest.approx((0.3, 0.692))
