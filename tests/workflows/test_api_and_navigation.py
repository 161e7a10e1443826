"""The API as a product (an index, Swagger UI and Redoc served locally, every operation described, a browsable
launch form that shows the launch body, tokens researchers make and revoke themselves) and navigation by role
(links only to what the user may open, the main navigation on every page, styled 403 and 404 pages, logout back to
the login page)."""

import re

import pytest
from rest_framework.test import APIClient

from evalplatform.audit.models import AuditEvent
from tests.web.conftest import World, client_for

pytestmark = pytest.mark.django_db


def test_the_api_index_lists_every_endpoint_and_its_documentation(world: World) -> None:
    body = APIClient().get("/api/").json()
    assert body["documentation"]["swagger_ui"].endswith("/api/docs/")
    paths = {row["path"] for row in body["endpoints"]}
    for path in ("/api/datasets/", "/api/runs/compare/", "/api/datasets/{name}/review/", "/api/account/token/"):
        assert path in paths, path
    for row in body["endpoints"]:
        for method, text in row["methods"].items():
            assert text, f"{method} {row['path']} has no description"


def test_swagger_ui_and_redoc_are_served_from_this_server(world: World) -> None:
    client = client_for(world, "researcher")
    for url in ("/api/docs/", "/api/redoc/"):
        html = client.get(url).content.decode()
        assert "/static/drf_spectacular_sidecar/" in html, url
        assert not re.search(r"https?://(cdn|unpkg)", html), url


def test_the_browsable_launch_form_shows_the_launch_body(world: World) -> None:
    html = client_for(world, "researcher").get("/api/runs/", HTTP_ACCEPT="text/html").content.decode()
    for field in ("judge_prompts", "ac_convention", "per_context", "metrics"):
        assert field in html, field


def test_a_researcher_makes_and_revokes_their_own_token_and_the_key_is_never_audited(world: World) -> None:
    client = client_for(world, "researcher")
    made = client.post("/api/account/token/")
    assert made.status_code == 201
    key = made.json()["key"]
    bearer = APIClient()
    bearer.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    assert bearer.get("/api/runs/").status_code == 200
    assert client.get("/api/account/token/").json()["has_token"] is True
    assert "key" not in client.get("/api/account/token/").json()
    assert client.delete("/api/account/token/").status_code == 204
    assert bearer.get("/api/runs/").status_code in (401, 403)
    assert client.delete("/api/account/token/").status_code == 404
    events = AuditEvent.objects.filter(action__startswith="token.")
    assert [e.action for e in events.order_by("pk")] == ["token.create", "token.revoke"]
    assert all(key not in str(e.payload) and str(e.object_id) != key for e in events)
    # The page does the same; annotators have no token.
    page = client.post("/account/token/", {"action": "create"})
    assert page.status_code == 200 and b'id="token-key"' in page.content
    assert client_for(world, "annotator").post("/api/account/token/").status_code == 403
    assert client_for(world, "annotator").get("/account/token/").status_code == 403


def links(html: str) -> set[str]:
    nav = html.split('<nav class="main"', 1)[1].split("</nav>", 1)[0]
    return set(re.findall(r'href="([^"]+)"', nav))


def test_navigation_shows_each_role_only_what_it_may_open(world: World) -> None:
    for role in ("annotator", "researcher", "admin", "nobody"):
        client = client_for(world, role)
        html = client.get("/glossary/").content.decode()
        for href in links(html):
            assert client.get(href).status_code == 200, (role, href)
    annotator = links(client_for(world, "annotator").get("/glossary/").content.decode())
    assert "/annotation/" in annotator and "/runs/" not in annotator and "/datasets/" not in annotator
    researcher = links(client_for(world, "researcher").get("/glossary/").content.decode())
    assert {"/datasets/", "/runs/", "/runs/compare/", "/annotation/campaigns/", "/api/"} <= researcher


def test_the_main_navigation_is_on_annotation_pages_and_error_pages_are_styled(world: World) -> None:
    annotator = client_for(world, "annotator")
    assert '<nav class="main"' in annotator.get("/annotation/").content.decode()
    refused = annotator.get("/runs/")
    assert refused.status_code == 403
    text = refused.content.decode()
    assert "This page is not for your role" in text and '<nav class="main"' in text and "your annotation queue" in text
    missing = client_for(world, "researcher").get("/runs/999999/")
    assert missing.status_code == 404 and "Nothing here" in missing.content.decode()


def test_logout_goes_back_to_the_login_page(world: World) -> None:
    client = client_for(world, "researcher")
    response = client.post("/accounts/logout/")
    assert response.status_code == 302 and response["Location"] == "/accounts/login/"
