"""The panel of a run's judges (scoring.cdke.panel_results) on hand-built runs, and the panel options of a run's
spec (RunSpec.panel, RunSpec.judge_min_agreement) with their record in the manifest."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User

from evalplatform.corpus.models import Context, Dataset, Project, Question
from evalplatform.runs.models import Generation, ModelEndpoint, Run
from evalplatform.runs.serializers import RunLaunchSerializer
from evalplatform.runs.services import run_manifest
from evalplatform.runs.spec import PANEL_GRADED, PANEL_LAV_TIES, RunSpec, SpecError
from scoring.cdke.panel_results import panel_results, panel_results_json, panel_verdicts
from scoring.models import GenerationScore
from scoring.panel import PanelSpec
from scoring.stats import krippendorff_alpha
from tests.scoring.test_stats_agreement import KRIPPENDORFF_2011

N = None


def make_run(n_questions: int, spec: dict[str, object] | None = None) -> tuple[Run, list[Question]]:
    owner = User.objects.create_user(username="owner")
    project = Project.objects.create(name="p")
    dataset = Dataset.objects.create(name="d", kind=Dataset.Kind.DKD, project=project)
    context = Context.objects.create(dataset=dataset, key="c", text="t", source_text="s")
    questions = [
        Question.objects.create(dataset=dataset, context=context, key=f"q{i}", position=i, text="?", ground_truth="g")
        for i in range(n_questions)
    ]
    base = {"models": ["cand"], "evaluators": ["j1", "j2", "j3"]}
    run = Run.objects.create(kind=Run.Kind.CDKE, dataset=dataset, created_by=owner, spec=base | (spec or {}))
    return run, questions


def answer(run: Run, question: Question, model: ModelEndpoint, condition: str = "divergent") -> Generation:
    return Generation.objects.create(
        run=run, question=question, model=model, temperature=0.2, condition=condition, status="done", text="a"
    )


def score(generation: Generation, judge: ModelEndpoint, metric: str, value: float | None, status: str = "ok") -> None:
    GenerationScore.objects.create(
        generation=generation, scorer=judge.name, evaluator=judge, metric=metric, value=value, status=status
    )


def endpoint(name: str) -> ModelEndpoint:
    return ModelEndpoint.objects.create(name=name, provider="openai", model_id=name)


@pytest.mark.django_db
def test_three_judges_majority_mean_alpha_and_splits_by_hand() -> None:
    run, questions = make_run(4)
    cand, other = endpoint("cand"), endpoint("other")
    judges = [endpoint(n) for n in ("j1", "j2", "j3")]
    gens = [answer(run, q, cand) for q in questions]
    # LAV per answer and judge (None: j3's score is unparseable on g3, failed on g4: missing, never 0).
    lav = [(1, 1, 1), (1, 0, 1), (0, 0, N), (0, 1, N)]
    acc = [(1.0, 0.75, 1.0), (0.5, 0.5, 0.0), (0.25, 0.25, N), (0.0, 0.25, N)]
    for g, lav_row, acc_row in zip(gens, lav, acc, strict=True):
        for judge, lv, av in zip(judges, lav_row, acc_row, strict=True):
            status = "ok" if lv is not None else ("unparseable" if g == gens[2] else "failed")
            score(g, judge, "lav", lv, status)
            score(g, judge, "acc", av, status)
    # Another model's answer is a group of its own.
    lone = answer(run, questions[0], other)
    score(lone, judges[0], "lav", 1)

    groups = panel_results(run, n_boot=200)
    assert [(g.model, g.condition, g.temperature) for g in groups] == [
        ("cand", "divergent", 0.2),
        ("other", "divergent", 0.2),
    ]
    group = groups[0]
    assert group.judges == ("j1", "j2", "j3") and set(group.metrics) == {"lav", "acc"}
    lav_result = group.metrics["lav"]
    # Majority: 3-0 valid, 2-1 valid, 2-0 invalid, 1-1 tie -> "invalid" (the default tie rule).
    assert [i.verdict for i in lav_result.items] == [1.0, 1.0, 0.0, 0.0]
    assert [i.tie for i in lav_result.items] == [False, False, False, True]
    assert lav_result.splits == (gens[1].pk, gens[3].pk)
    # Nominal alpha by hand: coincidences o_00 = 2 (g3), o_01 = o_10 = 1 (g2: pairs /2) + 1 (g4), o_11 = 3 (g1) + 1
    # (g2); n_0 = 4, n_1 = 6, n = 10: alpha = 1 - (n - 1) (o_01 + o_10) / (2 n_0 n_1) = 1 - 9 * 4 / 48 = 0.25.
    assert lav_result.alpha.value == pytest.approx(0.25)
    assert lav_result.alpha.n == 4
    acc_result = group.metrics["acc"]
    # Means of the ok scores only: g3 is (0.25 + 0.25) / 2, not (0.25 + 0.25 + 0) / 3.
    assert [i.verdict for i in acc_result.items] == pytest.approx([2.75 / 3, 1 / 3, 0.25, 0.125])
    assert [i.n_judges for i in acc_result.items] == [3, 3, 2, 2]
    assert acc_result.splits == (gens[1].pk,)  # 0.5 - 0.0 >= 0.5; g1's 1.0 - 0.75 is not
    rater_data: list[list[float | None]] = [[1.0, 0.5, 0.25, 0.0], [0.75, 0.5, 0.25, 0.25], [1.0, 0.0, N, N]]
    assert acc_result.alpha.value == pytest.approx(krippendorff_alpha(rater_data, "ordinal"))
    assert groups[1].metrics["lav"].alpha.value is None  # one judge: no pairable unit

    verdicts = panel_verdicts(groups)
    assert verdicts["lav"][gens[3].pk] == 0.0 and verdicts["acc"][gens[2].pk] == 0.25
    data = panel_results_json(run, groups)
    assert data["rules"]["lav"]["tie"] == "invalid" and data["rules"]["acc"]["rule"] == "mean"
    assert data["groups"][0]["metrics"]["lav"]["splits"] == [gens[1].pk, gens[3].pk]
    assert data["groups"][0]["metrics"]["acc"]["items"][2]["values"] == {"j1": 0.25, "j2": 0.25, "j3": None}


@pytest.mark.django_db
def test_run_spec_rules_median_and_valid_tie() -> None:
    run, questions = make_run(2, {"panel": {"lav_tie": "valid", "graded": "median"}})
    cand = endpoint("cand")
    judges = [endpoint(n) for n in ("j1", "j2", "j3")]
    tie, spread = (answer(run, q, cand) for q in questions)
    for judge, lv in zip(judges, (1, 0, None), strict=True):
        score(tie, judge, "lav", lv, "ok" if lv is not None else "failed")
    for judge, cm in zip(judges, (0.0, 0.25, 1.0), strict=True):
        score(spread, judge, "cm", cm)
    [group] = panel_results(run, n_boot=50)
    assert group.metrics["lav"].items[0].verdict == 1.0  # a tie, and the run says a tie is valid
    assert group.metrics["cm"].items[0].verdict == 0.25  # the median, where the mean would be 0.4167
    assert group.metrics["cm"].rule == "median"


@pytest.mark.django_db
def test_panel_alpha_on_krippendorffs_worked_example() -> None:
    """Krippendorff (2011)'s 4 observers x 12 units, values 1-5 stored as Acc 0-1 in quarters: ordinal alpha only
    depends on the order of the values, so the panel gives the published 0.815 (1 - 73749/399480)."""
    run, questions = make_run(12, {"evaluators": ["a", "b", "c", "d"]})
    cand = endpoint("cand")
    judges = [endpoint(n) for n in ("a", "b", "c", "d")]
    gens = [answer(run, q, cand) for q in questions]
    for judge, row in zip(judges, KRIPPENDORFF_2011, strict=True):
        for g, v in zip(gens, row, strict=True):
            score(g, judge, "acc", None if v is None else (v - 1) / 4, "ok" if v is not None else "unparseable")
    [group] = panel_results(run, n_boot=200)
    alpha = group.metrics["acc"].alpha
    assert alpha.value is not None and alpha.value == pytest.approx(1 - 73749 / 399480)
    assert round(alpha.value, 3) == 0.815
    assert alpha.n == 11  # unit 12 holds one value
    assert alpha.low is not None and alpha.high is not None and alpha.low <= alpha.value <= alpha.high


def test_spec_panel_options_are_validated_and_completed() -> None:
    spec = RunSpec.from_dict({"models": ["m"], "panel": {"graded": "median"}, "judge_min_agreement": 0.4})
    assert spec.panel == {"lav": "majority", "lav_tie": "invalid", "graded": "median", "graded_split": 0.5}
    assert spec.judge_min_agreement == 0.4
    assert RunSpec.from_dict(spec.to_dict()) == spec
    default = RunSpec.from_dict({"models": ["m"]})
    assert default.panel is None and default.judge_min_agreement is None
    assert PanelSpec.from_options(default.panel) == PanelSpec()
    assert PanelSpec.from_options(spec.panel) == PanelSpec(graded="median")
    bad = [
        ("panel", "mean"),
        ("panel", {"graded": "mode"}),
        ("panel", {"lav_tie": "coin"}),
        ("panel", {"lav": "unanimity"}),
        ("panel", {"graded_split": 0}),
        ("panel", {"graded_split": True}),
        ("panel", {"weights": [1, 2]}),
        ("judge_min_agreement", 1.5),
        ("judge_min_agreement", "0.5"),
        ("judge_min_agreement", True),
        ("judge_min_agreement", float("nan")),
    ]
    for key, value in bad:
        with pytest.raises(SpecError) as caught:
            RunSpec.from_dict({"models": ["m"], key: value})
        assert caught.value.field == key, (key, value)


def test_spec_choices_match_the_panel_core() -> None:
    for tie in PANEL_LAV_TIES:
        assert PanelSpec(lav_tie=tie).lav_tie == tie  # type: ignore[arg-type]
    for graded in PANEL_GRADED:
        assert PanelSpec(graded=graded).graded == graded  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        PanelSpec(lav_tie="coin")  # type: ignore[arg-type]


@pytest.mark.django_db
def test_manifest_records_the_panel_and_the_launch_serializer_passes_it() -> None:
    import scoring.apps  # noqa: F401  (the stages are registered at start-up)

    spec = RunSpec.from_dict(
        {"models": ["m"], "evaluators": ["j"], "panel": {"lav_tie": "unresolved"}, "judge_min_agreement": 0.3}
    )
    manifest = run_manifest(spec)
    assert manifest["panel"] == PanelSpec(lav_tie="unresolved").as_manifest()
    assert manifest["judge_min_agreement"] == 0.3
    body = {
        "dataset": "d",
        "models": ["m"],
        "evaluators": ["j"],
        "panel": {"graded": "median"},
        "judge_min_agreement": -0.2,
    }
    serializer = RunLaunchSerializer(data=body)
    assert serializer.is_valid(), serializer.errors
    parsed = RunSpec.from_dict(serializer.spec())
    assert parsed.panel is not None and parsed.panel["graded"] == "median"
    assert parsed.judge_min_agreement == -0.2
    assert not RunLaunchSerializer(data=body | {"panel": {"graded": "mode"}}).is_valid()
    assert not RunLaunchSerializer(data=body | {"judge_min_agreement": 2}).is_valid()


@pytest.mark.django_db
def test_launch_form_passes_the_panel_options() -> None:
    from evalplatform.roles import user_add_role
    from evalplatform.runs.forms import LaunchForm

    run, _ = make_run(1)
    owner = run.created_by
    assert owner is not None
    user_add_role(user=owner, role="researcher")
    assert run.dataset.project is not None
    run.dataset.project.members.add(owner)
    endpoint("cand")
    post = {
        "dataset": "d",
        "models": ["cand"],
        "temperatures": "0.2",
        "conditions": ["divergent"],
        "samples": "1",
        "panel_graded": "median",
        "panel_lav_tie": "unresolved",
        "judge_min_agreement": "0.45",
    }
    form = LaunchForm(post, user=owner)
    assert form.is_valid(), form.errors
    spec = RunSpec.from_dict(form.spec())
    assert spec.panel is not None and (spec.panel["graded"], spec.panel["lav_tie"]) == ("median", "unresolved")
    assert spec.judge_min_agreement == 0.45
    assert not LaunchForm(post | {"judge_min_agreement": "1.5"}, user=owner).is_valid()
