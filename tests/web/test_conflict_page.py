"""The knowledge-conflict page ``/runs/<id>/conflict/`` and ``GET /api/runs/<id>/conflict/``: the same permissions
as the run's other results, the reason on a run without closed-book answers, the figures and the plot on one with
them, and (in a real Chromium) the page reached from the run page.

The world's run (tests/web/conftest.py) asks four questions with ground truth "In 1901." and original answer
"In 1889." (markers {1901} / {1889}; kind date, 12 years apart) and answered them, with the divergent context,
"In 1901." (followed), "In 1889." (reverted), "In 1901, in Lyon." (followed), "No idea." (neither).
``with_closed_book`` adds its closed-book answers "1889", "1889", "I don't know.", "1889": priors knows 3,
does_not_know 1. Context-following: all items 2/4 = 0.5; conflict only (q0, q1, q3) 1/3. M_R all: reverted 1 /
(1 + 2 followed) = 1/3; conflict only: 1 / (1 + 1) = 0.5 (q3's "No idea." takes no side)."""

import math
from typing import Any

import pytest

from evalplatform.runs.models import Generation
from scoring.cdke.conflict_results import NO_CLOSED_BOOK
from tests.annotation.test_browser import ARTIFACTS, browser  # noqa: F401 (the Chromium fixture)
from tests.web.conftest import PASSWORD, ROLES, World, client_for, make_world

OWNED = {"nobody": 403, "annotator": 403, "outsider": 404, "researcher": 200, "admin": 200}
CLOSED_BOOK = ["1889", "1889", "I don't know.", "1889"]


def with_closed_book(world: World) -> None:
    run = world.run
    run.spec = {**run.spec, "conditions": ["divergent", "none"]}
    run.save(update_fields=["spec"])
    for g, text in zip(world.generations, CLOSED_BOOK, strict=True):
        Generation.objects.create(
            run=run, question=g.question, model=world.model, temperature=0.2, condition="none", status="done", text=text
        )


@pytest.mark.django_db
@pytest.mark.parametrize("role", ROLES)
def test_api_and_page_give_each_role_the_status_of_the_runs_other_results(world: World, role: str) -> None:
    client = client_for(world, role)
    api = client.get(f"/api/runs/{world.run.pk}/conflict/")
    page = client.get(f"/runs/{world.run.pk}/conflict/")
    results = client.get(f"/api/runs/{world.run.pk}/results/")
    if role == "anonymous":
        assert api.status_code in (401, 403)
        assert page.status_code == 302 and page["Location"].startswith("/accounts/login/")
    else:
        assert api.status_code == page.status_code == results.status_code == OWNED[role]


@pytest.mark.django_db
def test_a_run_without_closed_book_answers_says_so(world: World) -> None:
    client = client_for(world, "researcher")
    data = client.get(f"/api/runs/{world.run.pk}/conflict/").json()
    assert data["reason"] == NO_CLOSED_BOOK and data["rows"] == [] and data["comparisons"] == []
    assert client.get(f"/api/runs/{world.run.pk}/results/").json()["conflict"]["reason"] == NO_CLOSED_BOOK
    page = client.get(f"/runs/{world.run.pk}/conflict/")
    assert "launch with the `none` condition" in page.content.decode()
    assert b'id="conflict-table"' not in page.content


@pytest.mark.django_db
def test_figures_by_hand_in_the_api_and_on_the_page(world: World) -> None:
    with_closed_book(world)
    client = client_for(world, "researcher")
    data = client.get(f"/api/runs/{world.run.pk}/conflict/").json()
    assert data["reason"] is None
    (row,) = data["rows"]
    assert (row["model"], row["condition"], row["temperature"], row["n_answers"]) == ("cand", "divergent", 0.2, 4)
    assert row["following"]["priors"] == {"knows_original": 3, "does_not_know": 1, "believes_other": 0, "unverified": 0}
    assert row["following"]["all_items"]["value"] == 0.5
    assert math.isclose(row["following"]["conflict_only"]["value"], 1 / 3)
    assert math.isclose(row["memorisation_all"]["ratio"]["value"], 1 / 3)
    assert row["memorisation_conflict"]["ratio"]["value"] == 0.5
    assert row["preference_by_kind"]["date"]["rate"]["value"] == 0.5
    bins = {b["label"]: b["preference"]["rate"]["value"] for b in row["preference_by_date_distance"]}
    assert bins["10-50y"] == 0.5 and bins["<1y"] is None
    assert data["comparisons"] == []  # one model
    # The run's results JSON (the API's and ``run_cdke --json``'s) carries the same figures.
    assert client.get(f"/api/runs/{world.run.pk}/results/").json()["conflict"] == data
    page = client.get(f"/runs/{world.run.pk}/conflict/").content.decode()
    assert 'id="conflict-table"' in page and "<svg" in page and "0.333" in page


def test_the_distance_plot_draws_labels_as_given_and_says_when_it_has_nothing() -> None:
    from evalplatform.runs.plots import preference_by_distance_svg

    empty = preference_by_distance_svg({"number": {"m": [("x1-1.1", None, None, None, 0)]}})
    assert "no number or date alteration" in empty
    svg = preference_by_distance_svg(
        {"date": {"$m$ / divergent": [("<1y", None, None, None, 0), ("1-5y", 0.25, 0.0, 0.5, 4)]}, "number": {}}
    )
    assert svg.startswith("<svg") and "$m$ / divergent" in svg and "dates" in svg and "numbers" not in svg


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_browser_opens_the_conflict_page_from_the_run_page(browser: Any, live_server: Any) -> None:  # noqa: F811
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support import expected_conditions as ec
    from selenium.webdriver.support.ui import WebDriverWait

    world = make_world()
    with_closed_book(world)
    wait = WebDriverWait(browser, 20)
    browser.get(f"{live_server.url}/accounts/login/?next=/runs/{world.run.pk}/")
    browser.find_element(By.NAME, "username").send_keys(world.users["researcher"].username)
    browser.find_element(By.NAME, "password").send_keys(PASSWORD)
    browser.find_element(By.CSS_SELECTOR, "form [type=submit]").click()
    wait.until(ec.element_to_be_clickable((By.ID, "conflict-link"))).click()
    wait.until(ec.url_matches(rf"/runs/{world.run.pk}/conflict/$"))
    table = wait.until(ec.presence_of_element_located((By.ID, "conflict-table")))
    assert "cand" in table.text and "0.333" in table.text
    plot = browser.find_element(By.CSS_SELECTOR, "#conflict-distance-plot svg")
    assert plot.size["width"] > 100
    ARTIFACTS.mkdir(exist_ok=True)
    browser.save_screenshot(str(ARTIFACTS / "web-run-conflict.png"))
