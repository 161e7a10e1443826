"""Login attempts beyond the 'login' rate get 429 with Retry-After; a good password still logs in before."""

import pytest

from tests.web.conftest import PASSWORD, World

pytestmark = [pytest.mark.django_db, pytest.mark.urls("tests.web.urls_throttled_login")]


def test_login_is_throttled_after_the_rate_and_says_when_to_retry(world: World, client, settings) -> None:
    settings.REST_FRAMEWORK = settings.REST_FRAMEWORK | {
        "DEFAULT_THROTTLE_RATES": settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"] | {"login": "3/minute"}
    }
    username = world.users["researcher"].username
    codes = [client.post("/accounts/login/", {"username": username, "password": "wrong"}).status_code for _ in range(3)]
    assert codes == [200, 200, 200]  # the form again, with its error
    blocked = client.post("/accounts/login/", {"username": username, "password": PASSWORD})
    assert blocked.status_code == 429 and 1 <= int(blocked["Retry-After"]) <= 60
    assert client.get("/accounts/login/").status_code == 200  # showing the form is not an attempt


def test_login_under_the_rate_signs_in(world: World, client) -> None:
    response = client.post("/accounts/login/", {"username": world.users["admin"].username, "password": PASSWORD})
    assert response.status_code == 302
    assert client.get("/api/runs/").status_code == 200
