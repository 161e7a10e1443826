"""Finding 1: the login throttle keyed on X-Forwarded-For, which any client sets, so a new value per try was
never throttled. Forwarded addresses are now believed only from TRUSTED_PROXIES, and failed logins are also
counted per username."""

import pytest

from evalplatform.trusted_proxies import client_address, trusted_networks
from tests.web.conftest import PASSWORD, World

pytestmark = pytest.mark.django_db


@pytest.fixture
def rates(settings):
    def set_rates(**rates: str) -> None:
        settings.REST_FRAMEWORK = settings.REST_FRAMEWORK | {
            "DEFAULT_THROTTLE_RATES": settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"] | rates
        }

    return set_rates


def test_a_new_forwarded_address_per_try_is_still_throttled(world: World, client, rates) -> None:
    rates(login="3/minute")
    username = world.users["researcher"].username
    for i in range(3):
        wrong = {"username": username, "password": "wrong"}
        assert client.post("/accounts/login/", wrong, HTTP_X_FORWARDED_FOR=f"10.9.8.{i}").status_code == 200
    right = {"username": username, "password": PASSWORD}
    blocked = client.post("/accounts/login/", right, HTTP_X_FORWARDED_FOR="10.9.8.99")
    assert blocked.status_code == 429  # the real address (REMOTE_ADDR) is blocked, whatever the header says
    assert "_auth_user_id" not in client.session


def test_behind_a_trusted_proxy_each_client_counts_under_the_address_the_proxy_saw(
    world: World, client, rates, settings
) -> None:
    rates(login="2/minute")
    settings.TRUSTED_PROXIES = trusted_networks(["127.0.0.1"])
    username = world.users["researcher"].username
    wrong = {"username": username, "password": "wrong"}
    # The client forges a new left-most value each time; the proxy appends the address it saw: 203.0.113.7.
    for forged in ("1.1.1.1", "1.1.1.2"):
        headers = {"HTTP_X_FORWARDED_FOR": f"{forged}, 203.0.113.7"}
        assert client.post("/accounts/login/", wrong, **headers).status_code == 200
    headers = {"HTTP_X_FORWARDED_FOR": "1.1.1.3, 203.0.113.7"}
    assert client.post("/accounts/login/", wrong, **headers).status_code == 429
    # Another client behind the same proxy has its own allowance.
    right = {"username": username, "password": PASSWORD}
    assert client.post("/accounts/login/", right, HTTP_X_FORWARDED_FOR="198.51.100.2").status_code == 302


def test_failed_logins_are_limited_per_username_from_any_address(world: World, client, rates) -> None:
    rates(login="100/minute", login_username="3/hour")
    target = world.users["researcher"].username
    for i in range(3):
        wrong = {"username": target, "password": "wrong"}
        assert client.post("/accounts/login/", wrong, REMOTE_ADDR=f"192.0.2.{i}").status_code == 200
    right = {"username": target, "password": PASSWORD}
    blocked = client.post("/accounts/login/", right, REMOTE_ADDR="192.0.2.50")
    assert blocked.status_code == 429 and int(blocked["Retry-After"]) > 60
    assert client.post("/accounts/login/", {"username": target.upper(), "password": "x"}).status_code == 429
    # Another account is not affected.
    admin = {"username": world.users["admin"].username, "password": PASSWORD}
    assert client.post("/accounts/login/", admin, REMOTE_ADDR="192.0.2.51").status_code == 302


def test_a_successful_login_is_not_counted_against_the_username(world: World, client, rates) -> None:
    rates(login="100/minute", login_username="2/hour")
    right = {"username": world.users["researcher"].username, "password": PASSWORD}
    for _ in range(3):
        assert client.post("/accounts/login/", right).status_code == 302
        client.logout()


def test_the_admin_login_goes_through_the_throttled_page(client) -> None:
    response = client.get("/admin/login/?next=/admin/")
    assert response.status_code == 302 and response["Location"] == "/accounts/login/?next=/admin/"
    assert client.get("/admin/")["Location"].startswith("/admin/login/")


@pytest.mark.parametrize(
    ("remote", "forwarded", "expected"),
    [
        ("192.0.2.1", "6.6.6.6", "192.0.2.1"),  # not from a proxy: the header is ignored
        ("10.0.0.2", "6.6.6.6, 203.0.113.7", "203.0.113.7"),  # the proxy's entry, not the client's
        ("10.0.0.2", "6.6.6.6, 203.0.113.7, 10.0.0.3", "203.0.113.7"),  # two trusted hops
        ("10.0.0.2", "", "10.0.0.2"),
        ("10.0.0.2", "10.0.0.4", "10.0.0.4"),  # only proxies: the left-most
    ],
)
def test_client_address_reads_forwarded_only_through_trusted_proxies(remote, forwarded, expected) -> None:
    networks = trusted_networks(["10.0.0.0/8"])
    meta = {"REMOTE_ADDR": remote, "HTTP_X_FORWARDED_FOR": forwarded}
    assert client_address(meta, networks) == expected


def test_a_bad_trusted_proxy_entry_is_an_error() -> None:
    with pytest.raises(ValueError, match=r"TRUSTED_PROXIES: 'proxy\.local'"):
        trusted_networks(["proxy.local"])
