"""Finding 9: 500 instead of 400. ``limit`` >= 2**63 (API and command), temperature ``nan`` (launch page and
command: the estimate showed, the launch failed), deeply nested JSON on any API endpoint and the TAU page, a
non-integer error key in a TAU submit. NaN and infinities are refused wherever a number comes in (RunSpec is the
one validator of run specs), and pair scores are exported as standard JSON."""

import json
from pathlib import Path
from typing import Any

import pytest
from django.core.management import CommandError, call_command
from django.test import Client

from annotation.services import tau_item_create
from evalplatform.corpus.exporters import export_dataset
from evalplatform.corpus.models import TextPair
from evalplatform.runs.models import Run
from evalplatform.runs.spec import MAX_WHOLE, RunSpec, SpecError
from tests.annotation.conftest import claim_tau, make_world
from tests.web.conftest import World, client_for

pytestmark = pytest.mark.django_db

BIG = 2**63
DEEP = "[" * 100_000 + "]" * 100_000
RUNS_IN_WORLD = 2  # its CDK-E run and its similarity benchmark: no test here may add one
LAUNCH = {"dataset": "dkd-mini", "models": ["cand"], "evaluators": ["judge"]}


def _no_constants(name: str) -> None:
    raise AssertionError(f"non-standard JSON constant {name}")


@pytest.mark.parametrize("path", ["/api/runs/", "/api/runs/estimate/"])
@pytest.mark.parametrize("field", ["limit", "per_context"])
def test_a_limit_past_2_63_is_a_400_in_the_api(world: World, path: str, field: str) -> None:
    response = client_for(world, "researcher").post(path, LAUNCH | {field: BIG}, format="json")
    assert response.status_code == 400 and field in response.json()
    assert Run.objects.count() == RUNS_IN_WORLD


@pytest.mark.parametrize(
    ("option", "value"), [("limit", BIG), ("per_context", BIG), ("seed", BIG), ("temperatures", "nan")]
)
def test_the_command_refuses_them_with_one_line(world: World, option: str, value: object) -> None:
    with pytest.raises(CommandError) as refused:
        # timeout=1: were the spec taken, the command would follow the run for a second, not a day.
        call_command("run_cdke", dataset="dkd-mini", models="cand", evaluators="judge", timeout=1, **{option: value})
    assert "\n" not in str(refused.value) and option in str(refused.value)
    assert Run.objects.count() == RUNS_IN_WORLD


@pytest.mark.parametrize("budget", ["nan", "inf", "-1"])
def test_the_command_refuses_a_budget_that_is_no_amount(world: World, budget: str) -> None:
    with pytest.raises(CommandError, match="--budget"):
        call_command("run_cdke", dataset="dkd-mini", models="cand", evaluators="judge", timeout=1, budget=budget)


@pytest.mark.parametrize("action", ["estimate", "launch"])
def test_the_launch_page_refuses_a_nan_temperature_before_estimating_or_launching(world: World, action: str) -> None:
    form = {
        "dataset": "dkd-mini",
        "models": ["cand"],
        "evaluators": ["judge"],
        "temperatures": "0.2, nan",
        "conditions": ["divergent"],
        "samples": "1",
        "action": action,
    }
    response = client_for(world, "researcher").post("/runs/launch/", form)
    assert response.status_code in (200, 400)  # the form again, with the reason; never a 500
    assert b"must be finite numbers" in response.content and b'id="estimate"' not in response.content
    assert Run.objects.count() == RUNS_IN_WORLD


@pytest.mark.parametrize("temperatures", [["nan"], [float("nan")], [float("inf")], "0.2,inf", [True], ["1e400"]])
def test_run_spec_refuses_every_non_finite_temperature(temperatures: object) -> None:
    with pytest.raises(SpecError, match="temperatures"):
        RunSpec.from_dict({"models": ["m"], "temperatures": temperatures})


def test_run_spec_bounds_its_whole_numbers() -> None:
    assert RunSpec.from_dict({"models": ["m"], "limit": MAX_WHOLE, "seed": MAX_WHOLE}).limit == MAX_WHOLE
    for field in ("limit", "per_context", "seed"):
        with pytest.raises(SpecError, match=field):
            RunSpec.from_dict({"models": ["m"], field: MAX_WHOLE + 1})


BAD_BODIES = [DEEP, '{"limit": NaN}', '{"temperatures": [1e400]}', '{"x": "a\\u0000b"}']


@pytest.mark.parametrize("path", ["/api/runs/", "/api/runs/estimate/"])
def test_bad_json_bodies_are_a_400_in_the_runs_api(world: World, path: str) -> None:
    client = client_for(world, "researcher")
    for body in BAD_BODIES:
        response = client.post(path, data=body, content_type="application/json")
        assert response.status_code == 400 and "JSON parse error" in response.json()["detail"], body[:20]


def _api_views(patterns: list, prefix: str = "") -> list[tuple[str, Any]]:
    found = []
    for pattern in patterns:
        route = prefix + str(pattern.pattern)
        if hasattr(pattern, "url_patterns"):
            found += _api_views(pattern.url_patterns, route)
        elif route.startswith("api/") and hasattr(pattern.callback, "cls"):
            found.append((route, pattern.callback.cls))
    return found


def test_every_api_view_parses_json_through_the_strict_parser() -> None:
    from django.urls import get_resolver
    from rest_framework.parsers import JSONParser

    from evalplatform.api_parsers import StrictJSONParser

    views = _api_views(get_resolver().url_patterns)
    assert len(views) >= 20
    loose = [
        route
        for route, view in views
        if any(issubclass(p, JSONParser) and not issubclass(p, StrictJSONParser) for p in view.parser_classes)
    ]
    assert not loose, loose


def test_bad_json_is_named_in_the_answer(world: World) -> None:
    response = client_for(world, "researcher").post("/api/runs/", data=DEEP, content_type="application/json")
    assert response.status_code == 400
    assert response.json() == {"detail": "JSON parse error - nested deeper than 64 levels"}


@pytest.fixture
def tau_assignment():
    ann = make_world(n_questions=1)
    tau_item_create(gold=[["tower", "in", "lyon"]], answer=[["tower", "in", "paris"]])
    return ann, claim_tau(ann.annotator)


def test_the_annotation_api_refuses_bad_json_with_400(tau_assignment) -> None:
    ann, assignment = tau_assignment
    client = Client()
    client.force_login(ann.annotator)
    for body in BAD_BODIES:
        response = client.post(f"/api/annotation/tau/{assignment.pk}/submit/", body, "application/json")
        assert response.status_code == 400 and "JSON parse error" in response.json()["detail"], body[:20]


def test_the_tau_page_refuses_deep_json_with_400(tau_assignment) -> None:
    ann, assignment = tau_assignment
    client = Client()
    client.force_login(ann.annotator)
    response = client.post(f"/annotation/tau/{assignment.pk}/", {"label": DEEP})
    assert response.status_code == 400 and b"nested deeper than 64 levels" in response.content


@pytest.mark.parametrize("key", ["x", "1.0", "", "0x0", "\u0661"])
def test_a_non_integer_error_key_is_a_400_in_the_api_and_on_the_page(tau_assignment, key: str) -> None:
    ann, assignment = tau_assignment
    client = Client()
    client.force_login(ann.annotator)
    label = {"aligned": [], "answer_errors": {key: "extra"}, "gold_errors": {"0": "missing"}}
    api = client.post(f"/api/annotation/tau/{assignment.pk}/submit/", json.dumps(label), "application/json")
    assert api.status_code == 400 and "not a triplet index" in api.json()["detail"]
    page = client.post(f"/annotation/tau/{assignment.pk}/", {"label": json.dumps(label)})
    assert page.status_code == 400 and b"not a triplet index" in page.content


def test_nan_pair_scores_export_as_standard_json(world: World) -> None:
    TextPair.objects.create(dataset=world.pairs, key="p-nan", position=1, text_a="a", text_b="b", score=float("nan"))
    TextPair.objects.create(dataset=world.pairs, key="p-inf", position=2, text_a="a", text_b="b", score=float("inf"))
    lines = "".join(export_dataset(world.pairs, "pairs-jsonl")).splitlines()
    records = [json.loads(line, parse_constant=_no_constants) for line in lines]
    assert [r.get("score") for r in records if r["id"] in ("p-nan", "p-inf")] == [None, None]


@pytest.mark.parametrize(("command", "option"), [("fabricate_contexts", "--limit"), ("generate_questions", "--limit")])
def test_the_authoring_commands_bound_their_limits(world: World, command: str, option: str, tmp_path: Path) -> None:
    args = ["--generator", "cand", option, str(BIG)]
    args += ["--from", "dkd-mini", "--into", "new"] if command == "fabricate_contexts" else ["--dataset", "dkd-mini"]
    with pytest.raises(CommandError, match="must be a whole number from 1 to 2147483647"):
        call_command(command, *args)
