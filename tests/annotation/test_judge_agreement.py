"""Judges against people (annotation.judge_agreement) on a hand-built calibration sample, the judges page and API
with the run's permissions, and the flag on the run page's Table 2 and the results API."""

from __future__ import annotations

import math

import pytest
from django.test import Client

from annotation.judge_agreement import human_labels, judge_agreement, judge_flags
from annotation.models import CalibrationItem, CalibrationLabel
from evalplatform.runs.models import Generation, ModelEndpoint, Run
from scoring.models import GenerationScore
from tests.annotation.conftest import World

N = None
# People: annotators A and B per answer (lav, acc, cm). g4 is an even LAV split: no people's LAV label.
PEOPLE = [
    ((1, 1.0, 0.5), (1, 0.5, 0.5)),  # g0: LAV 1, Acc mean 0.75
    ((1, 0.5, 0.5), (1, 0.5, 0.5)),  # g1: LAV 1, Acc 0.5
    ((0, 0.25, 0.0), (0, 0.25, 0.0)),  # g2: LAV 0, Acc 0.25
    ((0, 0.0, 0.0), (0, 0.0, 0.0)),  # g3: LAV 0, Acc 0
    ((1, 0.0, 0.0), (0, 0.5, 0.0)),  # g4: LAV tie, Acc 0.25
]
J1: dict[str, list[float | None]] = {"lav": [1, 0, 0, 0, 1], "acc": [1.0, 0.5, 0.25, 0.0, 0.25]}
# N: j2's Acc of g4 is unparseable, a missing value.
J2: dict[str, list[float | None]] = {"lav": [1, 1, 0, 0, 0], "acc": [0.75, 0.5, 0.25, 0.0, N]}
ASS = [0.9, 0.6, 0.3, 0.1, 0.2]


def build(world: World, threshold: float | None = 0.6) -> tuple[Run, list[Generation]]:
    cand = ModelEndpoint.objects.create(name="cand", provider="openai", model_id="cand-1")
    judges = [ModelEndpoint.objects.create(name=n, provider="openai", model_id=n) for n in ("j1", "j2")]
    spec: dict[str, object] = {
        "models": ["cand"],
        "evaluators": ["j1", "j2"],
        "temperatures": [0.2],
        "conditions": ["divergent"],
        "samples": 1,
        "metrics": ["lav", "acc"],
        "judge_min_agreement": threshold,
    }
    run = Run.objects.create(kind=Run.Kind.CDKE, dataset=world.dataset, status=Run.Status.DONE, spec=spec)
    gens = []
    for i, labels in enumerate(PEOPLE):
        g = Generation.objects.create(
            run=run,
            question=world.questions[i % 3],
            model=cand,
            temperature=0.2,
            sample_index=i,
            condition="divergent",
            text=f"answer {i}",
            status="done",
        )
        gens.append(g)
        item = CalibrationItem.objects.create(generation=g, seed=0)
        for annotator, (lav, acc, cm) in zip((world.annotator, world.other), labels, strict=True):
            CalibrationLabel.objects.create(item=item, annotator=annotator, lav=lav, acc=acc, cm=cm)
        for judge, values in zip(judges, (J1, J2), strict=True):
            for metric in ("lav", "acc"):
                v = values[metric][i]
                GenerationScore.objects.create(
                    generation=g,
                    scorer=judge.name,
                    evaluator=judge,
                    metric=metric,
                    value=v,
                    status="ok" if v is not None else "unparseable",
                )
        GenerationScore.objects.create(generation=g, scorer="minilm", metric="ass", value=ASS[i])
    return run, gens


@pytest.mark.django_db
def test_people_labels_majority_and_mean(world: World) -> None:
    run, gens = build(world)
    human = human_labels(run)
    assert human["lav"] == {gens[0].pk: 1.0, gens[1].pk: 1.0, gens[2].pk: 0.0, gens[3].pk: 0.0}  # g4 tied
    assert [human["acc"][g.pk] for g in gens] == [0.75, 0.5, 0.25, 0.0, 0.25]


@pytest.mark.django_db
def test_kappa_correlations_confusion_and_disagreements_by_hand(world: World) -> None:
    run, gens = build(world)
    report = judge_agreement(run, n_boot=200)
    lav = {row.rater: row for row in report.metrics["lav"]}
    assert list(lav) == ["j1", "j2", "panel", "ass"]
    j1 = lav["j1"].agreement
    # People 1,1,0,0 vs j1 1,0,0,0: p_o = 3/4, p_e = (2*1 + 2*3)/16 = 1/2, kappa = (3/4 - 1/2)/(1/2) = 0.5.
    assert j1.n == 4 and j1.kappa.value == pytest.approx(0.5)
    # phi = (ad - bc)/sqrt((a+b)(c+d)(a+c)(b+d)) = (1*2 - 1*0)/sqrt(2*2*1*3) = 1/sqrt(3).
    assert j1.pearson.value == pytest.approx(1 / math.sqrt(3))
    assert j1.confusion is not None and j1.confusion.counts == ((2, 0), (1, 1))
    assert j1.disagreements == (gens[1].pk,)
    assert lav["j2"].agreement.kappa.value == pytest.approx(1.0)
    # Panel of two with the default tie rule: g1 (j1 0, j2 1) is a tie -> not valid, so the panel equals j1 here.
    assert lav["panel"].agreement.kappa.value == pytest.approx(0.5)
    ass = lav["ass"].agreement
    assert ass.kappa.value is None and ass.scale == "continuous"
    assert ass.disagreements == (gens[1].pk, gens[2].pk)  # |1 - 0.6| and |0 - 0.3| exceed 0.25
    acc = {row.rater: row for row in report.metrics["acc"]}
    # Linear weighted kappa, people [3,2,1,0,1] vs j1 [4,2,1,0,1] (quarter-scale indices): observed
    # disagreement 1/4 / 5 = 0.05; expected sum_ij |i-j|/4 r_i c_j = 0.33 (r = .2,.4,.2,.2,0; c = .2,.4,.2,0,.2);
    # kappa_w = 1 - 0.05/0.33 = 28/33.
    assert acc["j1"].agreement.kappa.value == pytest.approx(28 / 33)
    assert acc["j1"].agreement.disagreements == (gens[0].pk,)
    # j2's unparseable Acc on g4 is missing, not a 0 (a 0 against the people's 0.25 would be a disagreement).
    assert acc["j2"].agreement.n == 4 and acc["j2"].agreement.kappa.value == pytest.approx(1.0)
    assert [r.rater for r in report.metrics["cm"]] == ["ass"]  # no judge scored Cm; ASS is there
    assert report.n_items == 5 and report.n_labels == 10 and report.n_annotators == 2


@pytest.mark.django_db
def test_flag_below_threshold_and_none_without_one(world: World) -> None:
    run, _ = build(world, threshold=0.6)
    flags = judge_flags(run)
    assert set(flags) == {"j1"}
    assert "LAV" in flags["j1"] and "0.500" in flags["j1"] and "ACC" not in flags["j1"]
    report = judge_agreement(run, n_boot=50)
    assert [r.flag is not None for r in report.metrics["lav"]] == [True, False, False, False]
    run.spec["judge_min_agreement"] = 0.4
    run.save()
    assert judge_flags(run) == {}
    run.spec["judge_min_agreement"] = None
    run.save()
    assert judge_flags(run) == {}
    run.spec["judge_min_agreement"] = 0.6
    run.spec["metrics"] = ["lav", "acc", "cm"]  # Cm asked, never scored: agreement unknown, so both are flagged
    run.save()
    assert set(judge_flags(run)) == {"j1", "j2"} and "CM: agreement with people unknown" in judge_flags(run)["j2"]


@pytest.mark.django_db
def test_judges_api_and_page_permissions_and_content(world: World) -> None:
    run, gens = build(world)
    researcher, outsider, annotator = Client(), Client(), Client()
    researcher.force_login(world.researcher)
    outsider.force_login(world.outsider)
    annotator.force_login(world.annotator)
    url = f"/api/runs/{run.pk}/judges/"
    data = researcher.get(url).json()
    assert data["run"] == run.pk
    [group] = data["panel"]["groups"]
    assert group["judges"] == ["j1", "j2"]
    assert group["metrics"]["lav"]["splits"] == [gens[1].pk, gens[4].pk]
    assert group["metrics"]["lav"]["split_urls"][0] == f"/runs/{run.pk}/generations/{gens[1].pk}/"
    people = data["people"]
    assert people["threshold"] == 0.6 and set(people["flags"]) == {"j1"}
    j1 = people["metrics"]["lav"][0]
    assert j1["rater"] == "j1" and j1["flagged"] is True and j1["kappa"]["value"] == pytest.approx(0.5)
    assert j1["disagreements"] == [{"generation": gens[1].pk, "url": f"/runs/{run.pk}/generations/{gens[1].pk}/"}]
    assert j1["confusion"] == {"categories": [0.0, 1.0], "counts": [[2, 0], [1, 1]]}
    # Scoped as the run's other results: another researcher's run is a 404 there and here; annotators get 403.
    assert outsider.get(f"/api/runs/{run.pk}/results/").status_code == 404
    assert outsider.get(url).status_code == 404
    assert annotator.get(url).status_code == 403
    assert Client().get(url).status_code in (401, 403)
    page = researcher.get(f"/runs/{run.pk}/judges/")
    assert page.status_code == 200
    html = page.content.decode()
    assert f'href="/runs/{run.pk}/generations/{gens[1].pk}/"' in html and "judge-flag" in html
    assert outsider.get(f"/runs/{run.pk}/judges/").status_code == 404
    assert annotator.get(f"/runs/{run.pk}/judges/").status_code == 403


@pytest.mark.django_db
def test_flag_on_the_run_page_table2_and_results_api(world: World) -> None:
    run, _ = build(world)
    client = Client()
    client.force_login(world.researcher)
    html = client.get(f"/runs/{run.pk}/").content.decode()
    assert f'href="/runs/{run.pk}/judges/"' in html
    table2 = html[html.index('id="table2"') : html.index("</table>", html.index('id="table2"'))]
    rows = table2.split("<tr>")[2:]
    j1_rows = [r for r in rows if "<td>j1" in r]
    j2_rows = [r for r in rows if "<td>j2" in r]
    assert j1_rows and all("judge-flag" in r for r in j1_rows)
    assert j2_rows and not any("judge-flag" in r for r in j2_rows)
    data = client.get(f"/api/runs/{run.pk}/results/").json()
    flagged = {(r["evaluator"], r["flagged"]) for r in data["rows"]}
    assert flagged == {("j1", True), ("j2", False)}
    assert all(("flagged" in r) for r in data["intervals"])
    assert html.count('class="warning-box judge-flag"') == 1  # the page-wide note, for its other tables
    admin = Client()
    admin.force_login(world.admin)
    calibration = admin.get(f"/annotation/calibration/runs/{run.pk}/").content.decode()
    rows = calibration[calibration.index("<tbody>") :].split("<tr>")[1:]
    assert [("judge-flag" in r) for r in rows if "<td>j" in r] == [True, False]
    run.spec["judge_min_agreement"] = None
    run.save()
    assert "judge-flag" not in client.get(f"/runs/{run.pk}/").content.decode()
    assert "judge-flag" not in admin.get(f"/annotation/calibration/runs/{run.pk}/").content.decode()


@pytest.mark.django_db
def test_flag_on_the_compare_page_and_api(world: World) -> None:
    """A judge flagged in any of the compared runs is flagged on the comparison's rows, with the run that flags it.
    The page is asked with the API's comma form (runs=A,B), which it used to ignore."""
    run, _ = build(world)
    other = Run.objects.create(
        kind=Run.Kind.CDKE, dataset=world.dataset, status=Run.Status.DONE, spec=run.spec | {"judge_min_agreement": None}
    )
    for g in Generation.objects.filter(run=run):  # the same answers and scores again, in a run that flags nobody
        scores = list(GenerationScore.objects.filter(generation=g))
        g.pk, g.run = None, other
        g.save()
        for score in scores:
            score.pk, score.generation = None, g
            score.save()
    client = Client()
    client.force_login(world.researcher)
    html = client.get("/runs/compare/", {"runs": f"{run.pk},{other.pk}"}).content.decode()
    table = html[html.index('id="compare-table"') : html.index("</table>", html.index('id="compare-table"'))]
    rows = table.split("<tr>")[2:]
    assert [r for r in rows if "<td>j1" in r] and all("judge-flag" in r for r in rows if "<td>j1" in r)
    assert not any("judge-flag" in r for r in rows if "<td>j2" in r)
    data = client.get("/api/runs/compare/", {"runs": f"{run.pk},{other.pk}"}).json()
    flags = {(r["evaluator"], r["flagged"]) for r in data["rows"]}
    assert flags == {("j1", True), ("j2", False), ("-", False)}  # "-": ASS, which no judge scores
    reason = next(r["flag_reason"] for r in data["rows"] if r["evaluator"] == "j1")
    assert reason.startswith(f"run {run.pk}: ")
