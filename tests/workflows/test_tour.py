"""Each role's whole day in a real browser (headless Debian Chromium), with a screenshot of every step: a researcher
uploads a dataset and queues it for review; two annotators review it by keyboard and settle a disagreement on the
consensus page; the researcher launches two runs (estimate first, live progress), compares them, samples answers for
calibration and sends the lowest-TAU items to labelling; three annotators align triplets with the mouse and one labels
answers for calibration; the researcher reads the campaign, the TAU agreement and the calibration report; the pages
at phone width; the API's documentation. The models are a real OpenAI-compatible server (tests/runs/judge_server.py).

Screenshots go to test-artifacts/tour/, or to $EVALPLATFORM_TOUR_DIR (docs/tour/ for docs/tour.md), quantised to a
small palette so that they stay small."""

import json
import os
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth.models import User

from annotation.models import CalibrationLabel, ItemState, ReviewItem, TauItem, TauLabel
from evalplatform.corpus.models import Dataset, Project, Question
from evalplatform.roles import user_add_role
from evalplatform.runs.models import ModelEndpoint, Run
from tests.annotation.test_browser import ARTIFACTS, browser  # noqa: F401 (the Chromium fixture)
from tests.conftest import SAMPLE_DKD
from tests.runs.judge_server import JudgeServer
from tests.web.test_browser import tasks_in_a_thread  # noqa: F401 (runs a launched run in a thread)

pytestmark = pytest.mark.browser
PASSWORD = "a-long-tour-password-1"
TOUR_DIR = Path(os.environ.get("EVALPLATFORM_TOUR_DIR", str(ARTIFACTS / "tour")))
WIDTH, HEIGHT = 1000, 860


def shoot(driver: Any, name: str) -> None:
    """A viewport screenshot, quantised to 128 colours (a third of the bytes; text stays sharp)."""
    from PIL import Image

    TOUR_DIR.mkdir(parents=True, exist_ok=True)
    path = TOUR_DIR / f"{name}.png"
    driver.save_screenshot(str(path))
    with Image.open(path) as image:
        image.convert("RGB").quantize(colors=128).save(path, optimize=True)


def tour_file(tmp_path: Path) -> Path:
    """The bundled sample cut to two contexts of two questions each: a study small enough to walk through."""
    document = json.loads(SAMPLE_DKD.read_text())
    document["name"] = "tour-dkd"
    document["contexts"] = document["contexts"][:2]
    for context in document["contexts"]:
        context["questions"] = context["questions"][:2]
    path = tmp_path / "tour-dkd.json"
    path.write_text(json.dumps(document, indent=1))
    return path


def overflow(driver: Any) -> int:
    """How many pixels the page is wider than the window (0: no sideways scrolling of the whole page)."""
    return int(
        driver.execute_script("return document.documentElement.scrollWidth - document.documentElement.clientWidth;")
    )


def too_wide(driver: Any) -> list[str]:
    """The elements that reach past the window's right edge (what makes a page scroll sideways)."""
    script = """
        const width = document.documentElement.clientWidth, out = [];
        document.querySelectorAll("main *, header *").forEach(function (e) {
          const right = e.getBoundingClientRect().right;
          if (right > width + 1 && !e.closest(".table-scroll, table")) {
            out.push(e.parentElement.tagName + ">" + e.tagName + " " + (e.textContent || "").slice(0, 20));
          }
        });
        return out.slice(0, 12);"""
    return list(driver.execute_script(script))


def person(name: str, role: str) -> User:
    user = User.objects.create_user(username=name, password=PASSWORD)
    user_add_role(user=user, role=role)
    return user


@pytest.mark.django_db(transaction=True)
def test_each_roles_whole_day_in_a_browser(
    browser: Any,  # noqa: F811
    live_server: Any,
    judge_server: JudgeServer,
    endpoint_factory: Callable[..., ModelEndpoint],
    tasks_in_a_thread: list[threading.Thread],  # noqa: F811
    tmp_path: Path,
) -> None:
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys
    from selenium.webdriver.support import expected_conditions as ec
    from selenium.webdriver.support.ui import Select, WebDriverWait

    judge_server.latency_s = 0.03
    researcher = person("rita-researcher", "researcher")
    annotators = [person(name, "annotator") for name in ("anna-annotator", "ben-annotator", "cleo-annotator")]
    Project.objects.create(name="tour").members.add(researcher)
    for name in ("cand-small", "judge-one"):
        endpoint_factory(name)
    browser.set_window_size(WIDTH, HEIGHT)
    from selenium.common.exceptions import NoSuchElementException, StaleElementReferenceException

    wait = WebDriverWait(browser, 30, ignored_exceptions=(NoSuchElementException, StaleElementReferenceException))
    url = live_server.url

    def login(user: User, path: str = "/") -> None:
        browser.get(f"{url}/accounts/login/?next={path}")
        browser.find_element(By.NAME, "username").send_keys(user.username)
        browser.find_element(By.NAME, "password").send_keys(PASSWORD + Keys.ENTER)
        wait.until(ec.presence_of_element_located((By.CSS_SELECTOR, "form.logout")))

    def logout() -> None:
        browser.find_element(By.CSS_SELECTOR, "form.logout button").click()
        wait.until(ec.url_contains("/accounts/login/"))  # logging out lands on the login page

    def go(element_id: str) -> None:
        """Press a button that leads to another page, and wait until that page has replaced this one."""
        browser.execute_script("window.tourPageBefore = true;")  # gone once another document has loaded
        browser.find_element(By.ID, element_id).click()
        wait.until(
            lambda d: d.execute_script("return window.tourPageBefore !== true && document.readyState === 'complete';")
        )

    def says(text: str) -> bool:
        """The page the last action led to shows this message (waiting for that page, not the one before)."""
        return bool(wait.until(ec.text_to_be_present_in_element((By.CSS_SELECTOR, "p.message"), text)))

    # 1. The researcher uploads a dataset on the datasets page and queues its questions for review.
    login(researcher, "/datasets/")
    browser.find_element(By.ID, "id_file").send_keys(str(tour_file(tmp_path)))
    Select(browser.find_element(By.ID, "id_project")).select_by_value("tour")
    shoot(browser, "01-upload")
    go("upload-button")
    assert says("Imported tour-dkd version 1: 2 contexts, 4 questions")
    go("queue-review")
    assert says("Queued 4 question(s) for two-annotator review")
    shoot(browser, "02-dataset-queued")
    logout()

    # 2. Two annotators review every question by keyboard; the second disagrees on one ground truth.
    truths = dict(Question.objects.filter(dataset__name="tour-dkd").values_list("key", "ground_truth"))
    disputed = sorted(truths)[0]
    for index, annotator in enumerate(annotators[:2]):
        login(annotator, "/annotation/")
        browser.find_element(By.ID, "next-review").click()
        for number in range(1, 5):
            position = wait.until(ec.presence_of_element_located((By.ID, "queue-position"))).text
            assert position == f"{number} of 4"
            key = browser.find_element(By.TAG_NAME, "h1").text.split()[2]
            body = browser.find_element(By.TAG_NAME, "body")
            body.send_keys("1")
            body.send_keys("3")
            body.send_keys("g")
            truth = truths[key]
            if index == 1 and key == disputed:
                truth = truth.replace("Agatha Mary Patricia Bert", "Agatha Mary Clarissa Miller")
            browser.switch_to.active_element.send_keys(truth)
            if index == 0 and number == 1:
                shoot(browser, "03-review")
            ActionChains(browser).key_down(Keys.CONTROL).send_keys(Keys.ENTER).key_up(Keys.CONTROL).perform()
            if number < 4:
                wait.until(ec.text_to_be_present_in_element((By.ID, "queue-position"), f"{number + 1} of 4"))
        assert says("That was the last question")
        if index == 0:
            logout()
    waiting = ReviewItem.objects.get(state=ItemState.NEEDS_DECISION)
    assert waiting.question.key == disputed
    assert ReviewItem.objects.filter(state=ItemState.DECIDED).count() == 3

    # 3. The consensus page says why a decision is needed, shows the difference, and adopts one ground truth.
    browser.get(f"{url}/annotation/consensus/{waiting.pk}/")
    reasons = browser.find_element(By.ID, "consensus-reasons").text
    assert "names differ" in reasons
    assert browser.find_elements(By.CSS_SELECTOR, "#gt-diff del") and browser.find_elements(
        By.CSS_SELECTOR, "#gt-diff ins"
    )
    shoot(browser, "04-consensus")
    go("adopt-0")
    assert says("Decision recorded")
    assert Question.objects.filter(dataset__name="tour-dkd", status="validated").count() == 4
    logout()

    # 4. The researcher launches two runs (the estimate first), watches one progress, and compares them.
    login(researcher, "/runs/launch/?dataset=tour-dkd")
    runs: list[Run] = []
    for temperature in ("0.2", "0.7"):  # the same model at two temperatures, the first with its graphs
        if runs:
            browser.get(f"{url}/runs/launch/?dataset=tour-dkd")
        browser.find_element(By.CSS_SELECTOR, "input[name=models][value=cand-small]").click()
        browser.find_element(By.CSS_SELECTOR, "input[name=evaluators][value=judge-one]").click()
        browser.find_element(By.CSS_SELECTOR, "input[name=conditions][value=real]").click()
        field = browser.find_element(By.NAME, "temperatures")
        field.clear()
        field.send_keys(temperature)
        if not runs:
            Select(browser.find_element(By.ID, "id_kg_extractor")).select_by_value("dependency")
        browser.find_element(By.ID, "estimate-button").click()
        parts = wait.until(ec.presence_of_element_located((By.ID, "estimate-parts"))).text
        assert "answer calls" in parts and "judge calls" in parts
        if not runs:
            browser.execute_script("document.getElementById('estimate').scrollIntoView();")
            shoot(browser, "05-estimate")
        browser.find_element(By.ID, "confirm-launch").click()
        wait.until(ec.url_matches(r"/runs/\d+/$"))
        run = Run.objects.latest("pk")
        runs.append(run)
        if len(runs) == 1:
            wait.until(ec.presence_of_element_located((By.CSS_SELECTOR, ".phases .phase")))
            shoot(browser, "06-progress")

        def finished(driver: Any, pk: int = run.pk) -> bool:
            state = driver.execute_script(
                "const e = document.getElementById(arguments[0]); return e ? e.dataset.status : null;",
                f"progress-{pk}",
            )
            return state == "done"

        WebDriverWait(browser, 180, poll_frequency=0.5).until(finished)
    for thread in tasks_in_a_thread:
        thread.join(60)
    for run in runs:
        run.refresh_from_db()
        assert run.status == Run.Status.DONE and run.progress_done == run.progress_total, run.status_reason
    browser.get(f"{url}/runs/{runs[0].pk}/")
    wait.until(ec.presence_of_element_located((By.CSS_SELECTOR, "#table2 tbody tr td")))
    assert browser.find_elements(By.ID, "effects-table")  # divergent - real within the run
    assert overflow(browser) <= 1  # wide tables scroll inside the page, the page itself does not
    shoot(browser, "07-results")
    browser.get(f"{url}/runs/compare/?runs={runs[0].pk}&runs={runs[1].pk}")
    rows = wait.until(ec.presence_of_element_located((By.ID, "compare-table"))).text
    assert "LAV" in rows and "ASS" in rows
    paired = browser.find_elements(By.XPATH, "//table[@id='compare-table']//tr[td[4]='ASS']/td[last()-2]")
    assert paired and all(cell.text.split()[0] == "4" for cell in paired)  # 4 questions paired per condition
    shoot(browser, "08-compare")

    # 5. Calibration and TAU labelling are queued from the first run's page.
    browser.get(f"{url}/runs/{runs[0].pk}/")
    size = browser.find_element(By.ID, "sample_size")
    size.clear()
    size.send_keys("2")
    go("sample-calibration")
    assert says("Queued 2 answer(s) for calibration labels")
    go("queue-tau")
    assert says("TAU item(s) to three-annotator labelling")
    tau_items = TauItem.objects.filter(generation__run=runs[0]).count()
    assert tau_items >= 1
    logout()

    # 6. Three annotators align the triplets with the mouse; one labels answers for the judges' calibration.
    for index, annotator in enumerate(annotators):
        login(annotator, "/annotation/")
        browser.find_element(By.ID, "next-tau").click()
        for _ in range(tau_items):
            wait.until(ec.presence_of_element_located((By.ID, "tau-board")))
            answer_items = browser.find_elements(By.CSS_SELECTOR, "#answer-list li")
            gold_items = browser.find_elements(By.CSS_SELECTOR, "#gold-list li")
            answer_items[0].click()
            gold_items[0].click()  # aligned: a line joins them
            for li in answer_items[1:]:
                li.click()
                browser.find_element(By.ID, "btn-extra").click()
            for li in gold_items[1:]:
                li.click()
                browser.find_element(By.ID, "btn-missing").click()
            assert "Every triplet is labelled" in browser.find_element(By.ID, "tau-status").text
            assert browser.find_elements(By.CSS_SELECTOR, "#tau-links line")
            if index == 0:
                shoot(browser, "09-tau")
            go("submit-tau")
            assert says("Alignment submitted")
        if index == 0:
            browser.get(f"{url}/annotation/calibration/next/")
            for _ in range(2):
                wait.until(ec.presence_of_element_located((By.ID, "shown-context")))
                for name, value in (("lav", "1"), ("acc", "1"), ("cm", "0.75")):
                    browser.find_element(By.CSS_SELECTOR, f"input[name={name}][value='{value}']").click()
                if not CalibrationLabel.objects.exists():
                    shoot(browser, "10-calibration")
                before = CalibrationLabel.objects.count()
                go("save-label")

                def saved(driver: Any, n: int = before) -> bool:
                    return CalibrationLabel.objects.count() == n + 1

                WebDriverWait(browser, 30).until(saved)
                assert says("Label saved") or says("No generation is waiting")
        logout()
    assert TauLabel.objects.count() == 3 * tau_items and CalibrationLabel.objects.count() == 2

    # 7. The researcher reads the campaign, the TAU agreement and the calibration of the judges.
    login(researcher, "/annotation/campaigns/")
    datasets = browser.find_element(By.ID, "campaign-datasets").text
    assert "tour-dkd" in datasets and "κ" in datasets
    shoot(browser, "11-campaign")
    browser.get(f"{url}/annotation/tau/agreement/")
    assert "complete item(s)" in browser.find_element(By.TAG_NAME, "main").text
    shoot(browser, "12-tau-agreement")
    browser.get(f"{url}/annotation/calibration/runs/{runs[0].pk}/")
    assert "judge-one" in browser.find_element(By.TAG_NAME, "table").text
    shoot(browser, "13-calibration-report")

    # 8. At phone width the run page stacks and its tables scroll sideways; the API documents itself.
    browser.set_window_size(390, 844)
    browser.get(f"{url}/runs/{runs[0].pk}/")
    wait.until(ec.presence_of_element_located((By.ID, "table2")))
    assert overflow(browser) <= 1, f"the page is {overflow(browser)}px wider than the phone: {too_wide(browser)}"
    shoot(browser, "14-phone")
    browser.set_window_size(WIDTH, HEIGHT)
    browser.get(f"{url}/api/docs/")
    wait.until(ec.presence_of_element_located((By.CSS_SELECTOR, ".swagger-ui .opblock")))
    time.sleep(0.5)
    shoot(browser, "15-api-docs")
    assert Dataset.objects.get(name="tour-dkd").runs.count() == 2
