"""Each judge's agreement with itself on a hand-computable retest, and who may read and start retests and
reproductions through the API and the page."""

import pytest

from evalplatform.audit.models import AuditEvent
from evalplatform.runs.models import Run
from scoring.cdke.retest import retest_rows, retest_start
from scoring.models import GenerationScore, RetestBatch, RetestScore
from tests.web.conftest import World, client_for

pytestmark = pytest.mark.django_db


def hand_retest(world: World) -> RetestBatch:
    """The world's run: LAV 1, 0, 1, 0 the first time; 1, 0, 0, 0 the second. Acc 0, 0.5, 0.75, 0.25 the first
    time, a step (0.25) higher each the second. Cm 1, 0, 1, (unparseable) both times."""
    generations = world.generations
    for g, value in zip(generations, [0.0, 0.5, 0.75, 0.25], strict=True):
        GenerationScore.objects.filter(generation=g, metric="acc").update(value=value)
    batch = retest_start(run=world.run, sample_size=4, seed=0)
    second = {"lav": [1.0, 0.0, 0.0, 0.0], "acc": [0.25, 0.75, 1.0, 0.5], "cm": [1.0, 0.0, 1.0, 0.0]}
    for metric, values in second.items():
        for g, value in zip(generations, values, strict=True):
            RetestScore.objects.create(batch=batch, generation=g, evaluator=world.judge, metric=metric, value=value)
    return batch


def test_agreement_of_a_judge_with_itself_by_hand(world: World) -> None:
    batch = hand_retest(world)
    assert batch.metrics == ["acc", "cm", "lav"]
    rows = {r.metric: r for r in retest_rows(batch, n_boot=200)}
    # LAV: p_o = 3/4; the first occasion says valid to 2 of 4, the second to 1 of 4:
    # p_e = (2*1 + 2*3)/16 = 1/2, kappa = (3/4 - 1/2)/(1 - 1/2) = 1/2.
    lav = rows["lav"]
    assert lav.statistic == "kappa" and lav.agreement.value == pytest.approx(0.5) and lav.n == 4
    assert lav.changed == (world.generations[2].pk,) and lav.exact_agreement == pytest.approx(0.75)
    assert lav.agreement.low is not None and lav.agreement.low <= 0.5 <= lav.agreement.high  # type: ignore[operator]
    # Acc: a uniform shift d = 0.25 leaves no residual (EMS = 0): ICC(2,1) = BMS / (BMS + k JMS / n) with
    # target means 0.125, 0.625, 0.875, 0.375 around 0.5: BMS = 2 * 0.3125 / 3 = 5/24, and k JMS / n = d^2 = 1/16,
    # so ICC(2,1) = (10/48) / (13/48) = 10/13.
    acc = rows["acc"]
    assert acc.statistic == "icc(2,1)" and acc.agreement.value == pytest.approx(10 / 13) and acc.n == 4
    assert acc.exact_agreement == 0.0 and len(acc.changed) == 4
    # Cm: the fourth answer was unparseable the first time: 3 answers, the same both times, ICC 1.
    cm = rows["cm"]
    assert cm.agreement.value == pytest.approx(1.0) and (cm.n, cm.n_missing) == (3, 1)


def test_the_retest_api_reads_for_researchers_who_see_the_run(world: World) -> None:
    hand_retest(world)
    url = f"/api/runs/{world.run.pk}/retest/"
    body = client_for(world, "researcher").get(url).json()
    assert body["run"] == world.run.pk and len(body["fingerprint"]) == 64 and body["fingerprint_lines"]
    (retest,) = body["retests"]
    rows = {r["metric"]: r for r in retest["rows"]}
    assert rows["lav"]["value"] == pytest.approx(0.5) and rows["lav"]["n"] == 4
    assert rows["acc"]["value"] == pytest.approx(10 / 13) and rows["acc"]["statistic"] == "icc(2,1)"
    assert retest["units_left"] == 0 and retest["n_sampled"] == 4
    assert client_for(world, "admin").get(url).status_code == 200
    assert client_for(world, "outsider").get(url).status_code == 404
    assert client_for(world, "annotator").get(url).status_code == 403
    assert client_for(world, "nobody").get(url).status_code == 403
    assert client_for(world, "anonymous").get(url).status_code in (401, 403)


def test_starting_a_retest_is_for_researchers_who_see_the_run_and_is_audited(world: World) -> None:
    url = f"/api/runs/{world.run.pk}/retest/"
    for role in ("annotator", "nobody", "anonymous"):
        assert client_for(world, role).post(url, {"sample": 2}, format="json").status_code in (401, 403)
    assert client_for(world, "outsider").post(url, {"sample": 2}, format="json").status_code == 404
    assert not RetestBatch.objects.exists()
    bad = client_for(world, "researcher").post(url, {"sample": 0}, format="json")
    assert bad.status_code == 400 and "sample" in bad.json()
    unknown = client_for(world, "researcher").post(url, {"sample": 2, "cache": False}, format="json")
    assert unknown.status_code == 400
    response = client_for(world, "researcher").post(url, {"sample": 2, "seed": 3}, format="json")
    assert (
        response.status_code == 202 and response.json()["answers"] == 2 and response.json()["evaluators"] == ["judge"]
    )
    batch = RetestBatch.objects.get()
    assert batch.created_by == world.users["researcher"]
    event = AuditEvent.objects.get(action="run.retest")
    assert event.payload["batch"] == batch.pk and event.payload["seed"] == 3


def test_a_running_run_is_not_retested(world: World) -> None:
    Run.objects.filter(pk=world.run.pk).update(status=Run.Status.RUNNING)
    response = client_for(world, "researcher").post(f"/api/runs/{world.run.pk}/retest/", {"sample": 2}, format="json")
    assert response.status_code == 400 and "run" in response.json()


def test_the_retest_page_shows_the_fingerprint_and_the_agreement(world: World) -> None:
    hand_retest(world)
    page = client_for(world, "researcher").get(f"/runs/{world.run.pk}/retest/")
    assert page.status_code == 200
    html = page.content.decode()
    assert "fingerprint " in html and "icc(2,1)" in html and "0.769" in html and "0.500" in html
    assert client_for(world, "annotator").get(f"/runs/{world.run.pk}/retest/").status_code == 403
    assert client_for(world, "outsider").get(f"/runs/{world.run.pk}/retest/").status_code == 404


def test_fingerprint_and_reproduce_api_permissions(world: World) -> None:
    fp = f"/api/runs/{world.run.pk}/fingerprint/"
    body = client_for(world, "researcher").get(fp).json()
    assert body["fingerprint"]["dataset"] == {"name": "dkd-mini", "version": 1} and body["lines"]
    assert client_for(world, "outsider").get(fp).status_code == 404
    assert client_for(world, "annotator").get(fp).status_code == 403
    url = f"/api/runs/{world.run.pk}/reproduce/"
    assert client_for(world, "annotator").post(url, {}, format="json").status_code == 403
    assert client_for(world, "outsider").post(url, {}, format="json").status_code == 404
    # The world's run is no reproduction: there is nothing to compare it with.
    assert client_for(world, "researcher").get(url).status_code == 400


def test_the_results_api_carries_the_fingerprint(world: World) -> None:
    body = client_for(world, "researcher").get(f"/api/runs/{world.run.pk}/results/").json()
    assert len(body["fingerprint"]["hash"]) == 64 and body["fingerprint"]["recorded_at_launch"] is False
    assert body["fingerprint_lines"][0].startswith("fingerprint ")
    page = client_for(world, "researcher").get(f"/runs/{world.run.pk}/").content.decode()
    assert 'id="run-fingerprint"' in page and body["fingerprint"]["hash"][:16] in page


def test_a_researcher_reproduces_a_run_through_the_api(world: World) -> None:
    client = client_for(world, "researcher")
    response = client.post(f"/api/runs/{world.run.pk}/reproduce/", {}, format="json")
    assert response.status_code == 201
    second = Run.objects.get(pk=response.json()["id"])
    assert second.manifest["reproduces"] == world.run.pk and second.spec["use_cache"] is False
    assert second.created_by == world.users["researcher"]
    assert AuditEvent.objects.filter(action="run.launch", object_id=second.pk).exists()
    # Nothing has run yet (the workers take it once the request commits): no score to compare, none moved.
    moved = client.get(f"/api/runs/{second.pk}/reproduce/").json()
    assert (moved["compared"], moved["moved"], moved["only_in_first"]) == (0, 0, 24)
    assert moved["status"] == "queued" and moved["scores"] == []
    assert client_for(world, "outsider").get(f"/api/runs/{second.pk}/reproduce/").status_code == 404
    # A running run is not reproduced.
    again = client.post(f"/api/runs/{second.pk}/reproduce/", {}, format="json")
    assert again.status_code == 400 and "run" in again.json()


def test_the_page_starts_a_retest_for_a_researcher(world: World) -> None:
    client = client_for(world, "researcher")
    response = client.post(f"/runs/{world.run.pk}/retest/", {"sample": "3", "seed": "4"})
    assert response.status_code == 302 and response["Location"] == f"/runs/{world.run.pk}/retest/"
    batch = RetestBatch.objects.get()
    assert (batch.sample_size, batch.seed, len(batch.generations)) == (3, 4, 3)
    assert AuditEvent.objects.filter(action="run.retest", actor=world.users["researcher"]).count() == 1
    page = client.get(f"/runs/{world.run.pk}/retest/").content.decode()
    assert f'id="retest-{batch.pk}"' in page and "3 of 3 units left" in page
    refused = client.post(f"/runs/{world.run.pk}/retest/", {"sample": "zero"}, follow=True)
    assert "Nothing was started" in refused.content.decode() and RetestBatch.objects.count() == 1
    assert client_for(world, "annotator").post(f"/runs/{world.run.pk}/retest/", {"sample": "3"}).status_code == 403
