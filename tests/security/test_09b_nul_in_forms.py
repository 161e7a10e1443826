"""Found after finding 9: a NUL character in a page form post or a query string reached PostgreSQL (which cannot
hold one in a string) and answered 500. It is refused with 400 before any view runs, on every page and route."""

import pytest
from django.test import Client

from tests.web.conftest import World

pytestmark = pytest.mark.django_db


def test_a_nul_in_the_login_form_is_400(world: World) -> None:
    response = Client().post("/accounts/login/", {"username": "rita\x00", "password": "x"})
    assert response.status_code == 400 and b"NUL" in response.content


def test_a_nul_in_a_query_string_is_400_on_pages_and_the_api(world: World) -> None:
    client = Client()
    client.force_login(world.users["researcher"])
    assert client.get("/runs/", {"status": "do\x00ne"}).status_code == 400
    api = client.get("/api/runs/", {"status": "do\x00ne"})
    assert api.status_code == 400 and "NUL" in api.json()["detail"]


def test_a_nul_in_a_review_form_is_400_and_changes_nothing(world: World) -> None:
    from annotation.models import Review

    client = Client()
    client.force_login(world.users["annotator"])
    before = Review.objects.count()
    response = client.post("/annotation/review/1/", {"verdict": "accept", "ground_truth": "Paris\x00"})
    assert response.status_code == 400 and Review.objects.count() == before


def test_text_without_nul_passes(world: World) -> None:
    client = Client()
    client.force_login(world.users["researcher"])
    assert client.get("/runs/", {"status": "done"}).status_code == 200
