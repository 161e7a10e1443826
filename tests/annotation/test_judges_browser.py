"""A real headless Chromium: a researcher opens the judges page from the run page, sees the flagged judge, and
clicks a disagreement with people through to the answer's page."""

import pytest
from django.contrib.auth.models import User

from tests.annotation.conftest import make_world
from tests.annotation.test_browser import ARTIFACTS, browser  # noqa: F401  (the fixture)
from tests.annotation.test_judge_agreement import build

pytestmark = pytest.mark.browser


@pytest.mark.django_db(transaction=True)
def test_browser_run_page_to_judges_to_a_disagreement(browser, live_server) -> None:  # noqa: F811
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys
    from selenium.webdriver.support import expected_conditions as ec
    from selenium.webdriver.support.ui import WebDriverWait

    world = make_world()
    run, gens = build(world)
    user = User.objects.get(pk=world.researcher.pk)
    user.set_password("research-me-please")
    user.save()
    wait = WebDriverWait(browser, 10)

    browser.get(f"{live_server.url}/accounts/login/?next=/runs/{run.pk}/")
    browser.find_element(By.NAME, "username").send_keys(user.username)
    browser.find_element(By.NAME, "password").send_keys("research-me-please" + Keys.ENTER)
    table2 = wait.until(ec.presence_of_element_located((By.ID, "table2")))
    assert "flagged" in table2.text
    browser.find_element(By.ID, "judges-link").click()

    people = wait.until(ec.presence_of_element_located((By.ID, "people-lav")))
    assert "j1" in people.text and "flagged" in people.text
    assert browser.find_elements(By.CSS_SELECTOR, ".panel-table .split-link")
    ARTIFACTS.mkdir(exist_ok=True)
    browser.save_screenshot(str(ARTIFACTS / "judges-page.png"))
    link = people.find_element(By.CSS_SELECTOR, ".disagreement-link")
    assert link.text == f"#{gens[1].pk}"
    link.click()
    heading = wait.until(ec.presence_of_element_located((By.TAG_NAME, "h1")))
    assert heading.text.startswith(f"Answer #{gens[1].pk}")
    assert browser.current_url.endswith(f"/runs/{run.pk}/generations/{gens[1].pk}/")
    browser.save_screenshot(str(ARTIFACTS / "judges-disagreement.png"))
