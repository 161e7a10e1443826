"""A real headless Chromium: a researcher launches a run from its page (the estimate first), watches its
progress reach 100 % without reloading, then sees the run's tables and plots; a screenshot is saved under
test-artifacts/. The run calls a real OpenAI-compatible server; its tasks run in a background thread."""

import threading
import time
from collections.abc import Callable
from typing import Any

import pytest
from django.db import connection

from evalplatform.runs.models import ModelEndpoint, Run
from tests.annotation.test_browser import ARTIFACTS, browser  # noqa: F401 (the Chromium fixture)
from tests.runs.judge_server import JudgeServer
from tests.web.conftest import PASSWORD, make_world

pytestmark = pytest.mark.browser


@pytest.fixture
def tasks_in_a_thread(monkeypatch: pytest.MonkeyPatch) -> list[threading.Thread]:
    """run_execute.delay starts the run in a thread (its subtasks run eagerly there), so the page that
    launched it returns at once and the progress can be watched moving."""
    from evalplatform.runs.tasks import run_execute

    threads: list[threading.Thread] = []

    def delay(run_id: int) -> None:
        def work() -> None:
            try:
                run_execute.apply(args=(run_id,))
            finally:
                connection.close()

        thread = threading.Thread(target=work, daemon=True)
        threads.append(thread)
        thread.start()

    monkeypatch.setattr(run_execute, "delay", delay)
    return threads


@pytest.mark.django_db(transaction=True)
def test_browser_launch_watch_progress_and_see_the_plots(
    browser: Any,  # noqa: F811
    live_server: Any,
    judge_server: JudgeServer,
    endpoint_factory: Callable[..., ModelEndpoint],
    tasks_in_a_thread: list[threading.Thread],
) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support import expected_conditions as ec
    from selenium.webdriver.support.ui import WebDriverWait

    judge_server.latency_s = 0.05
    world = make_world()
    endpoint_factory("browser-cand")
    endpoint_factory("browser-judge")
    wait = WebDriverWait(browser, 20)

    browser.get(f"{live_server.url}/accounts/login/?next=/runs/launch/%3Fdataset%3Ddkd-mini")
    browser.find_element(By.NAME, "username").send_keys(world.users["researcher"].username)
    browser.find_element(By.NAME, "password").send_keys(PASSWORD)
    browser.find_element(By.CSS_SELECTOR, "form [type=submit]").click()
    wait.until(ec.presence_of_element_located((By.ID, "launch-form")))
    browser.find_element(By.CSS_SELECTOR, "input[name=models][value=browser-cand]").click()
    browser.find_element(By.CSS_SELECTOR, "input[name=evaluators][value=browser-judge]").click()
    temperatures = browser.find_element(By.NAME, "temperatures")
    temperatures.clear()
    temperatures.send_keys("0.2, 0.7")
    browser.find_element(By.CSS_SELECTOR, "input[name=conditions][value=real]").click()
    browser.find_element(By.ID, "estimate-button").click()
    wait.until(ec.presence_of_element_located((By.ID, "estimate")))
    assert "calls" in browser.find_element(By.ID, "estimate").text
    assert Run.objects.filter(created_by=world.users["researcher"]).count() == 1  # the world's own run only
    browser.find_element(By.ID, "confirm-launch").click()

    wait.until(ec.url_matches(r"/runs/\d+/$"))  # the launch page itself is under /runs/ too
    run = Run.objects.latest("pk")
    assert browser.current_url.endswith(f"/runs/{run.pk}/")
    seen: list[str] = []

    def finished(driver: Any) -> bool:
        # Both attributes are read in one script: the page reloads itself when the run is done, and an
        # element looked up before the reload would be stale by the time its second attribute is read.
        state = driver.execute_script(
            "const e = document.getElementById(arguments[0]);return e ? [e.dataset.status, e.dataset.percent] : null;",
            f"progress-{run.pk}",
        )
        if state is None:  # between the old page and the reloaded one
            return False
        status, percent = state
        seen.append(percent)
        return bool(status == "done" and percent == "100")

    WebDriverWait(browser, 90, poll_frequency=0.3).until(finished)
    for thread in tasks_in_a_thread:
        thread.join(30)
    run.refresh_from_db()
    # 16 cells (4 questions x 2 temperatures x 2 conditions), each its answer, its ASS and one evaluator
    assert run.status == Run.Status.DONE and run.progress_done == run.progress_total == 4 * 2 * 2 * 3
    assert seen[-1] == "100"

    # The page reloads itself once the run is done: the tables and both plots are there and drawn.
    wait.until(ec.presence_of_element_located((By.CSS_SELECTOR, "#table2 tbody tr td")))
    time.sleep(0.5)
    rows = browser.find_elements(By.CSS_SELECTOR, "#table2 tbody tr")
    assert len(rows) == 4  # 1 model x 1 evaluator x 2 temperatures x 2 conditions
    # Plots only where they carry information: two temperatures draw the temperature plot; two contexts are too
    # few for the per-context scatters, which the page leaves out.
    width = wait.until(
        lambda d: d.execute_script(
            "const i = document.getElementById('plot-temperature'); return i.complete ? i.naturalWidth : 0;"
        )
    )
    assert width > 100
    assert not browser.find_elements(By.ID, "plot-correlation")
    ARTIFACTS.mkdir(exist_ok=True)
    browser.save_screenshot(str(ARTIFACTS / "web-run-page.png"))
    browser.execute_script("document.getElementById('plot-temperature').scrollIntoView();")
    browser.save_screenshot(str(ARTIFACTS / "web-run-plots.png"))

    browser.get(f"{live_server.url}/runs/")
    label = browser.find_element(By.CSS_SELECTOR, f"#progress-{run.pk} .label").text
    assert label.startswith("100 %")
    browser.find_element(By.CSS_SELECTOR, f"a[href='/runs/{run.pk}/']").click()
    browser.find_element(By.CSS_SELECTOR, "#generations tbody tr a").click()
    wait.until(ec.presence_of_element_located((By.ID, "scores")))
    browser.save_screenshot(str(ARTIFACTS / "web-drill-down.png"))
