"""A provider key planted in the environment is used for real calls and then looked for in every page,
every API response, every export, the admin and every captured log line: it must appear nowhere."""

import logging
from collections.abc import Callable
from typing import Any

import pytest
from django.contrib import admin
from django.http import StreamingHttpResponse
from django.urls import reverse

from evalplatform.runs.launch import run_launch
from evalplatform.runs.models import ModelEndpoint, Run
from tests.runs.judge_server import JudgeServer
from tests.web.conftest import World, client_for, make_world
from tests.web.test_matrix import api_cases, page_cases

KEY = "sk-planted-9f8e7d6c5b4a3210-do-not-print"
KEY_ENV = "EVALPLATFORM_TEST_PLANTED_API_KEY"


def content_of(response: Any) -> str:
    if isinstance(response, StreamingHttpResponse):
        return b"".join(response.streaming_content).decode()  # type: ignore[arg-type]
    return response.content.decode(errors="replace")


@pytest.mark.django_db
def test_planted_provider_key_is_sent_but_never_shown_logged_or_exported(
    monkeypatch: pytest.MonkeyPatch,
    judge_server: JudgeServer,
    endpoint_factory: Callable[..., ModelEndpoint],
    caplog: pytest.LogCaptureFixture,
    capsys: pytest.CaptureFixture[str],
    django_capture_on_commit_callbacks: Callable[..., Any],
) -> None:
    monkeypatch.setenv(KEY_ENV, KEY)
    seen_auth: list[str] = []
    handler = judge_server._server.RequestHandlerClass

    class Recording(handler):  # type: ignore[valid-type, misc]
        def do_POST(self) -> None:
            seen_auth.append(self.headers.get("Authorization", ""))
            super().do_POST()

    judge_server._server.RequestHandlerClass = Recording
    judge_server.inject("answer", 500)  # one retried server error: error paths are logged too
    judge_server.inject("lav", "garbage")  # one unparseable verdict with its raw output shown
    caplog.set_level(logging.DEBUG)
    for name in ("openai", "httpx", "httpcore", "evalplatform", "celery"):
        logging.getLogger(name).setLevel(logging.DEBUG)

    world: World = make_world()
    endpoint_factory("keyed-cand", api_key_env=KEY_ENV)
    endpoint_factory("keyed-judge", api_key_env=KEY_ENV)
    with django_capture_on_commit_callbacks(execute=True):
        run = run_launch(
            dataset=world.dataset,
            spec={"models": ["keyed-cand"], "evaluators": ["keyed-judge"], "conditions": ["divergent", "real"]},
            actor=world.users["researcher"],
        )
    run.refresh_from_db()
    assert run.status == Run.Status.DONE
    assert seen_auth and all(auth == f"Bearer {KEY}" for auth in seen_auth), "the key must really be used"

    world.run = run
    world.generations = list(run.generations.order_by("pk"))
    bodies: dict[str, str] = {}
    for role in ("researcher", "admin"):
        client = client_for(world, role)
        for method, url, _payload, _ in api_cases(world):
            if method == "get":
                bodies[f"{role} {url}"] = content_of(client.get(url))
        for url, _ in page_cases(world):
            bodies[f"{role} {url}"] = content_of(client.get(url))
        for extra in ("/api/endpoints/", "/api/schema/?format=json", f"/api/runs/{run.pk}/results/"):
            bodies[f"{role} {extra}"] = content_of(client.get(extra))
    superuser = world.users["admin"]
    superuser.is_staff = superuser.is_superuser = True
    superuser.save()
    admin_client = client_for(world, "admin")
    for model in admin.site._registry:
        meta = model._meta
        url = reverse(f"admin:{meta.app_label}_{meta.model_name}_changelist")
        bodies[f"admin {url}"] = content_of(admin_client.get(url))
    for endpoint in ModelEndpoint.objects.all():
        url = reverse("admin:runs_modelendpoint_change", args=[endpoint.pk])
        bodies[f"admin {url}"] = content_of(admin_client.get(url))

    assert len(bodies) > 60
    leaks = [where for where, text in bodies.items() if KEY in text]
    assert not leaks, f"the key shows in {leaks}"
    assert not [where for where, text in bodies.items() if not text]
    log_lines = [record.getMessage() for record in caplog.records]
    assert log_lines, "the run logs something"
    assert not [line for line in log_lines if KEY in line]
    captured = capsys.readouterr()
    assert KEY not in captured.out and KEY not in captured.err
