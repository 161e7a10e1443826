"""A real headless Chromium: an annotator logs in, completes a review and a TAU labelling by keyboard."""

import shutil
import tempfile
from pathlib import Path

import pytest
from django.contrib.auth.models import User

from annotation.models import Review, TauLabel
from annotation.services import tau_item_create
from tests.annotation.conftest import make_world
from tests.conftest import REPO

pytestmark = pytest.mark.browser

ARTIFACTS = REPO / "test-artifacts"
CHROMIUM_FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
)


@pytest.fixture
def browser():
    chromium = shutil.which("chromium")
    driver_path = shutil.which("chromedriver")
    if not chromium or not driver_path:
        pytest.skip("Debian's chromium and chromium-driver are not installed (make browsers)")
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    profile = tempfile.mkdtemp(prefix="chromium-profile-")
    options = webdriver.ChromeOptions()
    options.binary_location = chromium
    for flag in (*CHROMIUM_FLAGS, f"--user-data-dir={profile}", "--window-size=1280,1000"):
        options.add_argument(flag)
    driver = webdriver.Chrome(service=Service(driver_path), options=options)
    driver.implicitly_wait(5)
    yield driver
    driver.quit()
    shutil.rmtree(profile, ignore_errors=True)


@pytest.mark.django_db(transaction=True)
def test_browser_annotator_reviews_and_aligns_with_the_keyboard(browser, live_server) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys
    from selenium.webdriver.support import expected_conditions as ec
    from selenium.webdriver.support.ui import WebDriverWait

    world = make_world(n_questions=1)
    user = User.objects.get(pk=world.annotator.pk)
    user.set_password("annotate-me-please")
    user.save()
    tau_item_create(
        gold=[["tower", "located in", "lyon"], ["tower", "finished in", "1901"]],
        answer=[["tower", "finished in", "1901"], ["tower", "built by", "martians"]],
    )
    wait = WebDriverWait(browser, 10)

    browser.get(f"{live_server.url}/accounts/login/?next=/annotation/")
    browser.find_element(By.NAME, "username").send_keys(user.username)
    browser.find_element(By.NAME, "password").send_keys("annotate-me-please" + Keys.ENTER)
    wait.until(ec.presence_of_element_located((By.ID, "next-review"))).click()

    marks = [m.text for m in browser.find_elements(By.CSS_SELECTOR, "#context-text mark.divergent")]
    assert marks == ["1901", "Lyon"]
    # The review by keyboard too: space selects a radio button, Enter presses the submit button.
    browser.find_element(By.CSS_SELECTOR, "input[name=context_coherent][value=yes]").send_keys(Keys.SPACE)
    browser.find_element(By.CSS_SELECTOR, "input[name=question_valid][value=yes]").send_keys(Keys.SPACE)
    browser.find_element(By.ID, "ground_truth").send_keys("In Lyon, in 1901.")
    browser.find_element(By.ID, "submit-review").send_keys(Keys.ENTER)
    wait.until(ec.presence_of_element_located((By.ID, "next-tau"))).click()

    wait.until(ec.presence_of_element_located((By.ID, "tau-board")))
    body = browser.find_element(By.TAG_NAME, "body")
    # answer 0 (finished in 1901) <-> gold 1: move to gold list (l), down one (j), align (a);
    # answer 1 (martians) is extra: back to answer list (h), down (j), key 3;
    # gold 0 (located in lyon) is missing: gold list (l), up (k) to gold 0, key 4; then Enter.
    for key in ["l", "j", "a", "h", "j", "3", "l", "k", "4"]:
        body.send_keys(key)
    assert "Every triplet is labelled" in browser.find_element(By.ID, "tau-status").text
    ARTIFACTS.mkdir(exist_ok=True)
    browser.save_screenshot(str(Path(ARTIFACTS) / "annotation-tau-keyboard.png"))
    body.send_keys(Keys.ENTER)
    wait.until(ec.presence_of_element_located((By.ID, "next-tau")))

    review = Review.objects.get(assignment__annotator=user)
    assert (review.context_coherent, review.question_valid, review.ground_truth) == (
        True,
        True,
        "In Lyon, in 1901.",
    )
    label = TauLabel.objects.get(assignment__annotator=user)
    assert label.aligned == [[0, 1]]
    assert label.answer_errors == {"1": "extra"}
    assert label.gold_errors == {"0": "missing"}


@pytest.mark.django_db(transaction=True)
def test_browser_a_triplet_marked_extra_is_not_aligned_by_the_next_gold_click(browser, live_server) -> None:
    """Regression: the answer triplet clicked last stayed 'waiting for its gold partner' after the toolbar had given
    it an error type, so the next gold click aligned it and wiped the label (the tour found it)."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys
    from selenium.webdriver.support import expected_conditions as ec
    from selenium.webdriver.support.ui import WebDriverWait

    world = make_world(n_questions=1)
    user = User.objects.get(pk=world.annotator.pk)
    user.set_password("annotate-me-please")
    user.save()
    tau_item_create(
        gold=[["tower", "finished in", "1901"], ["tower", "located in", "lyon"]],
        answer=[["tower", "finished in", "1901"], ["tower", "built by", "martians"]],
    )
    wait = WebDriverWait(browser, 10)
    browser.get(f"{live_server.url}/accounts/login/?next=/annotation/")
    browser.find_element(By.NAME, "username").send_keys(user.username)
    browser.find_element(By.NAME, "password").send_keys("annotate-me-please" + Keys.ENTER)
    wait.until(ec.presence_of_element_located((By.ID, "next-tau"))).click()
    wait.until(ec.presence_of_element_located((By.ID, "tau-board")))
    answers = browser.find_elements(By.CSS_SELECTOR, "#answer-list li")
    golds = browser.find_elements(By.CSS_SELECTOR, "#gold-list li")
    answers[0].click()
    golds[0].click()
    answers[1].click()
    browser.find_element(By.ID, "btn-extra").click()
    golds[1].click()  # selects the gold triplet only: A2 is labelled, not waiting for a partner
    browser.find_element(By.ID, "btn-missing").click()
    assert answers[1].get_attribute("data-state") == "extra"
    assert "Every triplet is labelled" in browser.find_element(By.ID, "tau-status").text
    browser.find_element(By.ID, "submit-tau").click()
    wait.until(ec.presence_of_element_located((By.ID, "next-tau")))
    label = TauLabel.objects.get(assignment__annotator=user)
    assert (label.aligned, label.answer_errors, label.gold_errors) == ([[0, 0]], {"1": "extra"}, {"1": "missing"})
