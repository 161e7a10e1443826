"""A panel of judges: verdicts, tie rule, splits and Krippendorff's alpha per metric, by hand."""

from __future__ import annotations

import pytest

from scoring.panel import PanelSpec, central, majority, panel_metric

LAV: dict[str, dict[str, int | bool | None]] = {
    "gpt-4": {"a": 1, "b": 1, "c": 0, "d": 1},
    "haiku": {"a": True, "b": False, "c": False, "d": None},
    "gemma": {"a": 1, "b": 0, "c": 1},  # no verdict on d
}
ACC = {
    "gpt-4": {"a": 1.0, "b": 0.5, "c": 0.0},
    "haiku": {"a": 0.75, "b": 0.5, "c": 0.5},
    "gemma": {"a": 1.0, "b": 0.25, "c": 1.0},
}


def test_majority_and_tie_rule() -> None:
    assert majority([1, 1, 0]) == (1, False)
    assert majority([True, False, False]) == (0, False)
    assert majority([1, 0]) == (0, True)  # default: a tie does not validate
    assert majority([1, 0], "valid") == (1, True)
    assert majority([1, 0, 1, 0], "unresolved") == (None, True)
    assert majority([]) == (None, False)


def test_central() -> None:
    assert central([1.0, 0.75, 1.0]) == pytest.approx(2.75 / 3)
    assert central([1.0, 0.75, 1.0], "median") == 1.0
    assert central([0.25, 0.5], "median") == pytest.approx(0.375)  # between two steps of the scale
    assert central([]) is None


def test_lav_panel_by_hand() -> None:
    result = panel_metric("lav", LAV, n_boot=200)
    verdicts = {row.item: row.verdict for row in result.items}
    assert verdicts == {"a": 1.0, "b": 0.0, "c": 0.0, "d": 1.0}  # d: one judge only
    assert [row.n_judges for row in result.items] == [3, 3, 3, 1]
    assert result.splits == ("b", "c")  # not unanimous; d cannot split with one verdict
    assert result.panel_mean == pytest.approx(0.5)
    # Alpha, nominal. Unit d has one value and is dropped. a = {1,1,1}: o_11 += 3 * 2 / 2 = 3;
    # b = {1,0,0} and c = {0,0,1}: each o_10 += 1, o_01 += 1, o_00 += 1. So o_11 = 3, o_00 = 2, o_01 = o_10 = 2;
    # n_1 = 5, n_0 = 4, n = 9. alpha = 1 - 8 * (2 + 2) / (2 * 5 * 4) = 1 - 32/40 = 0.2.
    assert result.alpha.value == pytest.approx(0.2)
    assert result.alpha.n == 3
    assert result.level == "nominal" and result.rule == "majority"


def test_lav_tie_is_recorded() -> None:
    two = {"j1": {"x": 1, "y": 1}, "j2": {"x": 0, "y": 1}}
    unresolved = panel_metric("lav", two, PanelSpec(lav_tie="unresolved"), n_boot=50)
    x = unresolved.items[0]
    assert (x.verdict, x.tie, x.split) == (None, True, True)
    assert unresolved.panel_mean == 1.0  # only y has a verdict
    assert panel_metric("lav", two, PanelSpec(lav_tie="valid"), n_boot=50).items[0].verdict == 1.0


def test_graded_panel_by_hand() -> None:
    result = panel_metric("acc", ACC, n_boot=200)
    verdicts = [row.verdict for row in result.items]
    assert verdicts == pytest.approx([2.75 / 3, 1.25 / 3, 0.5])
    medians = panel_metric("acc", ACC, PanelSpec(graded="median"), n_boot=50)
    assert [row.verdict for row in medians.items] == [1.0, 0.5, 0.5]
    assert medians.rule == "median"
    # Ranges: a 0.25, b 0.25, c 1.0: only c is at least 0.5 apart.
    assert result.splits == ("c",)
    assert panel_metric("acc", ACC, PanelSpec(graded_split=0.25), n_boot=50).splits == ("a", "b", "c")
    # Alpha, ordinal. Pairable values: 0 (1), 0.25 (1), 0.5 (3), 0.75 (1), 1 (3); n = 9.
    # Coincidences (m = 3, so each ordered pair weighs 1/2): a {1,1,0.75}: o(1,1) = 1, o(1,.75) = o(.75,1) = 1;
    # b {.5,.5,.25}: o(.5,.5) = 1, o(.5,.25) = o(.25,.5) = 1; c {0,.5,1}: every ordered pair 1/2.
    # Ordinal d = (sum_{g=c..k} n_g - (n_c + n_k)/2)^2: d(.75,1) = (4-2)^2 = 4, d(.25,.5) = (4-2)^2 = 4,
    # d(0,.5) = (5-2)^2 = 9, d(0,1) = (9-2)^2 = 49, d(.5,1) = (7-3)^2 = 16.
    # Observed: 2 * 1 * 4 + 2 * 1 * 4 + 2 * 0.5 * (9 + 49 + 16) = 90.
    # Expected, over c < k of n_c n_k d: (0,.25) 1*1 + (0,.5) 3*9 + (0,.75) 1*25 + (0,1) 3*49 + (.25,.5) 3*4
    # + (.25,.75) 1*16 + (.25,1) 3*36 + (.5,.75) 3*4 + (.5,1) 9*16 + (.75,1) 3*4 = 504, ordered 1008.
    # alpha = 1 - 8 * 90 / 1008 = 2/7.
    assert result.alpha.value == pytest.approx(2 / 7)
    assert result.level == "ordinal"


def test_alpha_is_none_with_a_reason_when_undefined() -> None:
    unanimous = panel_metric("lav", {"j1": {"x": 1, "y": 1}, "j2": {"x": 1, "y": 1}}, n_boot=50)
    assert unanimous.alpha.value is None and unanimous.alpha.reason
    single = panel_metric("cm", {"j1": {"x": 0.5, "y": 1.0}}, n_boot=50)
    assert single.alpha.value is None and single.alpha.n == 0
    assert [row.verdict for row in single.items] == [0.5, 1.0]


def test_spec_validation_and_manifest() -> None:
    with pytest.raises(ValueError):
        PanelSpec(lav_tie="coin")  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        PanelSpec(graded="mode")  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        panel_metric("fc", {})
    manifest = PanelSpec(lav_tie="unresolved", graded="median").as_manifest()
    assert manifest["lav"]["tie"] == "unresolved" and manifest["lav"]["alpha_level"] == "nominal"
    assert manifest["acc"]["rule"] == "median" and manifest["cm"]["alpha_level"] == "ordinal"
    assert manifest["version"]


def test_nan_is_no_verdict() -> None:
    result = panel_metric("acc", {"j1": {"x": 0.5, "y": float("nan")}, "j2": {"x": 1.0, "y": 0.75}}, n_boot=50)
    assert [row.n_judges for row in result.items] == [2, 1]
    assert result.items[1].verdict == 0.75
