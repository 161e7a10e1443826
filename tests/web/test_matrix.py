"""Every API endpoint and page walked with every role: the status code each must give.

Anonymous API calls get 401/403, anonymous page views go to the login page; annotators and users without
a role get 403; a researcher outside the dataset's project gets 404 for its objects and empty lists."""

import pytest

from tests.web.conftest import ROLES, World, client_for

pytestmark = pytest.mark.django_db

LIST = {"nobody": 403, "annotator": 403, "outsider": 200, "researcher": 200, "admin": 200}
OWNED = {"nobody": 403, "annotator": 403, "outsider": 404, "researcher": 200, "admin": 200}
LAUNCH = {"nobody": 403, "annotator": 403, "outsider": 400, "researcher": 201, "admin": 201}
ESTIMATE = {"nobody": 403, "annotator": 403, "outsider": 400, "researcher": 200, "admin": 200}
RESUME_DONE = {"nobody": 403, "annotator": 403, "outsider": 404, "researcher": 400, "admin": 400}
PAGE_LIST = {"nobody": 403, "annotator": 403, "outsider": 200, "researcher": 200, "admin": 200}
ADMIN_ONLY = {"nobody": 403, "annotator": 403, "outsider": 403, "researcher": 403, "admin": 200}

LAUNCH_BODY: dict[str, object] = {
    "dataset": "dkd-mini",
    "models": ["cand"],
    "evaluators": ["judge"],
    "temperatures": [0.2],
}


def api_cases(w: World) -> list[tuple[str, str, dict[str, object] | None, dict[str, int]]]:
    r, g, d = w.run.pk, w.generations[0].pk, w.dataset.name
    return [
        ("get", "/api/datasets/", None, LIST),
        ("get", f"/api/datasets/{d}/", None, OWNED),
        ("get", f"/api/datasets/{d}/contexts/", None, OWNED),
        ("get", f"/api/datasets/{d}/questions/?status=validated", None, OWNED),
        ("get", f"/api/datasets/{d}/export/dkd/", None, OWNED),
        ("get", f"/api/datasets/{d}/export/qa-jsonl/", None, OWNED),
        ("get", "/api/endpoints/", None, LIST),
        ("get", "/api/runs/", None, LIST),
        ("post", "/api/runs/", LAUNCH_BODY, LAUNCH),
        ("post", "/api/runs/estimate/", LAUNCH_BODY, ESTIMATE),
        ("get", f"/api/runs/{r}/", None, OWNED),
        ("get", f"/api/runs/{r}/progress/", None, OWNED),
        ("get", f"/api/runs/{r}/results/", None, OWNED),
        ("get", f"/api/runs/{r}/conflict/", None, OWNED),
        ("get", f"/api/runs/{r}/judges/", None, OWNED),
        ("get", f"/api/runs/{r}/retest/", None, OWNED),
        ("get", f"/api/runs/{r}/fingerprint/", None, OWNED),
        ("get", f"/api/runs/{r}/generations/?model=cand", None, OWNED),
        ("get", f"/api/runs/{r}/generations/{g}/", None, OWNED),
        ("get", f"/api/runs/{r}/export/generations.csv", None, OWNED),
        ("get", f"/api/runs/{r}/export/generations.jsonl", None, OWNED),
        ("get", f"/api/runs/{r}/export/scores.csv", None, OWNED),
        ("get", f"/api/runs/{r}/export/scores.jsonl", None, OWNED),
        ("post", f"/api/runs/{r}/resume/", None, RESUME_DONE),
        ("post", f"/api/runs/{r}/stop/", None, OWNED),
        ("get", "/api/benchmarks/", None, LIST),
    ]


def page_cases(w: World) -> list[tuple[str, dict[str, int]]]:
    r, g, d = w.run.pk, w.generations[0].pk, w.dataset.name
    return [
        ("/datasets/", PAGE_LIST),
        (f"/datasets/{d}/", OWNED),
        ("/runs/", PAGE_LIST),
        ("/runs/launch/", PAGE_LIST),
        (f"/runs/{r}/", OWNED),
        (f"/runs/{r}/generations/{g}/", OWNED),
        (f"/runs/{r}/judges/", OWNED),
        (f"/runs/{r}/retest/", OWNED),
        (f"/runs/{r}/plots/correlation.svg", OWNED),
        (f"/runs/{r}/plots/temperature.svg", OWNED),
        (f"/runs/{r}/conflict/", OWNED),
        ("/benchmarks/", PAGE_LIST),
        ("/benchmarks/heatmap-f1.svg", PAGE_LIST),
        ("/benchmarks/alpha-sweep-auroc.svg", PAGE_LIST),
        ("/reports/", ADMIN_ONLY),
    ]


@pytest.mark.parametrize("role", ROLES)
def test_every_api_endpoint_gives_each_role_its_status(world: World, role: str) -> None:
    client = client_for(world, role)
    failures = []
    for method, url, body, expected in api_cases(world):
        response = getattr(client, method)(url, body, format="json") if body else getattr(client, method)(url)
        want = {401, 403} if role == "anonymous" else {expected[role]}
        if response.status_code not in want:
            failures.append(f"{method.upper()} {url}: {response.status_code}, expected {want}")
    assert not failures, "\n".join(failures)


@pytest.mark.parametrize("role", ROLES)
def test_every_page_gives_each_role_its_status(world: World, role: str) -> None:
    client = client_for(world, role)
    failures = []
    for url, expected in page_cases(world):
        response = client.get(url)
        if role == "anonymous":
            ok = response.status_code == 302 and response["Location"].startswith("/accounts/login/")
        else:
            ok = response.status_code == expected[role]
        if not ok:
            failures.append(f"GET {url}: {response.status_code}, expected {expected.get(role, 302)}")
    assert not failures, "\n".join(failures)


def test_outsider_lists_are_empty_and_researcher_lists_hold_the_project(world: World) -> None:
    outsider = client_for(world, "outsider")
    assert outsider.get("/api/datasets/").json()["count"] == 0
    assert outsider.get("/api/runs/").json()["count"] == 0
    assert outsider.get("/api/benchmarks/").json()["count"] == 0
    researcher = client_for(world, "researcher")
    assert {d["name"] for d in researcher.get("/api/datasets/").json()["results"]} == {"dkd-mini", "mrpc-mini"}
    assert researcher.get("/api/runs/?kind=cdke").json()["count"] == 1
    assert researcher.get("/api/benchmarks/?method=bleu").json()["count"] == 1


def test_schema_is_served_to_anonymous_users_as_json(client) -> None:
    response = client.get("/api/schema/?format=json")
    assert response.status_code == 200
    schema = response.json()
    assert schema["openapi"].startswith("3.")
    assert "/api/runs/" in schema["paths"] and "post" in schema["paths"]["/api/runs/"]


def test_every_model_has_an_admin_with_filters_and_search_and_its_pages_load(world: World) -> None:
    from django.apps import apps
    from django.contrib import admin
    from django.urls import reverse

    ours = [m for m in apps.get_models() if m._meta.app_label in ("corpus", "runs", "annotation", "scoring")]
    unregistered = sorted(m.__name__ for m in ours if m not in admin.site._registry)
    assert unregistered == []
    superuser = world.users["admin"]
    superuser.is_staff = superuser.is_superuser = True
    superuser.save()
    client = client_for(world, "admin")
    for model, model_admin in admin.site._registry.items():
        if model._meta.app_label != "scoring":
            continue
        assert model_admin.list_filter and model_admin.search_fields, model.__name__
        url = reverse(f"admin:scoring_{model._meta.model_name}_changelist")
        assert client.get(url, {"q": "tower"}).status_code == 200, url
