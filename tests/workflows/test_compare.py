"""Comparing runs: rows aligned by (model, evaluator, condition, metric) with one value per run in the order asked,
delta = last − first, and the paired bootstrap interval and test over the shared questions; the per-question
answer diff; divergent − real within one run. Expected values are worked out by hand in the comments."""

import pytest

from evalplatform.runs.models import Generation, Run
from scoring.models import GenerationScore
from tests.web.conftest import World, client_for

pytestmark = pytest.mark.django_db


def second_run(world: World, lav: list[float]) -> Run:
    run = Run.objects.create(
        kind=Run.Kind.CDKE,
        dataset=world.dataset,
        status=Run.Status.DONE,
        created_by=world.users["researcher"],
        spec={"models": ["cand"], "evaluators": ["judge"], "temperatures": [0.7], "conditions": ["divergent"]},
    )
    for generation, value in zip(world.generations, lav, strict=True):
        g = Generation.objects.create(
            run=run,
            question=generation.question,
            model=world.model,
            temperature=0.7,
            condition="divergent",
            status="done",
            text=f"second answer {value}",
        )
        GenerationScore.objects.create(generation=g, scorer="judge", evaluator=world.judge, metric="lav", value=value)
        GenerationScore.objects.create(generation=g, scorer="minilm", metric="ass", value=0.5)
    return run


def test_compare_aligns_rows_and_gives_delta_and_the_paired_interval(world: World) -> None:
    first = world.run  # LAV per question: 1, 0, 1, 0
    second = second_run(world, [1.0, 1.0, 1.0, 0.0])
    client = client_for(world, "researcher")
    body = client.get(f"/api/runs/compare/?runs={first.pk},{second.pk}").json()
    assert [r["id"] for r in body["runs"]] == [first.pk, second.pk]
    rows = {(r["model"], r["evaluator"], r["condition"], r["metric"]): r for r in body["rows"]}
    lav = rows[("cand", "judge", "divergent", "lav")]
    assert lav["values"] == [0.5, 0.75] and lav["delta"] == 0.25
    # Paired differences (second − first) per question: 0, 1, 0, 0: mean 0.25 over 4 shared questions. McNemar's
    # exact test on 1 discordant pair against 0: p = 1. Bootstrap of [0, 1, 0, 0]: a resample holds k ones with
    # P(k=0) = 0.316, P(k<=2) = 0.949, P(k<=3) = 0.996, so its 2.5th and 97.5th percentiles are 0 and 3/4.
    assert lav["n_paired"] == 4 and lav["paired_delta"] == 0.25
    assert lav["interval"] == [0.0, 0.75]
    assert lav["test"] == "mcnemar_exact" and lav["p_value"] == 1.0
    assert (lav["last_higher"], lav["first_higher"]) == (1, 0)
    # ASS has no evaluator: its rows say "-". First run: 0.5 + LAV/4 = 0.75, 0.5, 0.75, 0.5 (mean 0.625).
    ass = rows[("cand", "-", "divergent", "ass")]
    assert ass["values"] == [0.625, 0.5] and ass["delta"] == pytest.approx(-0.125)
    # A metric only the first run has: its value in the second is None, and no pair.
    acc = rows[("cand", "judge", "divergent", "acc")]
    assert acc["values"] == [0.5, None] and acc["delta"] is None and acc["n_paired"] == 0
    # The order asked is the order given: reversed, delta changes sign.
    reverse = client.get(f"/api/runs/compare/?runs={second.pk},{first.pk}").json()
    lav_reversed = next(r for r in reverse["rows"] if r["metric"] == "lav")
    assert lav_reversed["values"] == [0.75, 0.5] and lav_reversed["delta"] == -0.25


@pytest.mark.parametrize("runs", ["", "1", "a,b", "{a},{a}", "{a},999999", "{a},{bench}"])
def test_compare_refuses_what_it_cannot_compare(world: World, runs: str) -> None:
    query = runs.format(a=world.run.pk, bench=world.bench.pk)
    response = client_for(world, "researcher").get(f"/api/runs/compare/?runs={query}")
    assert response.status_code == 400 and "runs" in response.json()


def test_an_outsider_cannot_compare_runs_they_cannot_see(world: World) -> None:
    second = second_run(world, [1.0, 1.0, 1.0, 0.0])
    response = client_for(world, "outsider").get(f"/api/runs/compare/?runs={world.run.pk},{second.pk}")
    assert response.status_code == 400 and "that you can see" in response.json()["runs"][0]
    assert client_for(world, "annotator").get("/api/runs/compare/?runs=1,2").status_code == 403


def test_the_answer_diff_puts_the_questions_that_changed_first(world: World) -> None:
    second = second_run(world, [1.0, 1.0, 1.0, 0.0])
    client = client_for(world, "researcher")
    url = f"/api/runs/compare/answers/?runs={world.run.pk},{second.pk}&model=cand&metric=lav&evaluator=judge"
    questions = client.get(url).json()["questions"]
    assert questions[0]["question"] == "q1" and questions[0]["spread"] == 1.0
    assert [a["text"] for a in questions[0]["answers"]] == ["In 1889.", "second answer 1.0"]
    assert client.get(url.replace("model=cand", "model=")).status_code == 400
    page = client.get(f"/runs/compare/?runs={world.run.pk}&runs={second.pk}&metric=lav")
    assert page.status_code == 200
    text = page.content.decode()
    assert 'id="compare-table"' in text and 'id="answer-diff"' in text and "second answer 1.0" in text


def test_divergent_minus_real_within_one_run(world: World) -> None:
    run = Run.objects.create(
        kind=Run.Kind.CDKE, dataset=world.dataset, status=Run.Status.DONE, created_by=world.users["researcher"]
    )
    # q0 and q1 under both conditions; LAV divergent 1, 1 and real 0, 1: differences 1 and 0, mean 0.5.
    for question, divergent, real in [
        (world.generations[0].question, 1.0, 0.0),
        (world.generations[1].question, 1.0, 1.0),
    ]:
        for condition, value in (("divergent", divergent), ("real", real)):
            g = Generation.objects.create(
                run=run, question=question, model=world.model, temperature=0.2, condition=condition, status="done"
            )
            GenerationScore.objects.create(
                generation=g, scorer="judge", evaluator=world.judge, metric="lav", value=value
            )
    effects = client_for(world, "researcher").get(f"/api/runs/{run.pk}/effects/").json()["effects"]
    assert len(effects) == 1
    effect = effects[0]
    assert (effect["divergent"], effect["real"], effect["delta"], effect["n_paired"]) == (1.0, 0.5, 0.5, 2)
    assert effect["p_value"] == 1.0  # one discordant pair
    # Bootstrap of [1, 0]: a resample's mean is 0, 0.5 or 1 (P = 1/4, 1/2, 1/4): the percentiles are 0 and 1.
    assert effect["interval"] == [0.0, 1.0]
