"""Finding 5: a provider error body that echoed the key was stored verbatim (then shown in the API and exports),
and api_key_env could name any variable (DATABASE_URL was sent as a Bearer token). Providers now scrub their key
from every error and raw output they make, the fields that store errors and raw outputs scrub every secret of the
environment once more, and api_key_env must name a key-like variable or an allow-listed one."""

import json
import threading
import traceback
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.core.exceptions import ValidationError
from django.db.models import F
from django.test import Client

from evalplatform.llm.errors import ProviderError
from evalplatform.llm.providers.openai_provider import OpenAIProvider
from evalplatform.llm.redaction import REDACTED
from evalplatform.llm.types import LLMRequest
from evalplatform.runs.clients import provider_for
from evalplatform.runs.launch import run_launch
from evalplatform.runs.models import Generation, ModelEndpoint, Run, StageProgress
from evalplatform.runs.spec import SpecError
from scoring.models import GenerationScore
from tests.web.conftest import World, client_for
from tests.web.test_key_never_leaks import content_of

KEY = "sk-echoed-4f3e2d1c0b9a8776-never-store"
KEY_ENV = "EVALPLATFORM_ECHO_API_KEY"


class EchoServer:
    """A real OpenAI-compatible server on 127.0.0.1 that echoes the Authorization header it was sent: in a 401
    error body (``mode = "401"``), or in a 200 completion's text (``mode = "200"``)."""

    def __init__(self) -> None:
        self.mode = "401"
        self.requests = 0
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: Any) -> None:
                return

            def do_POST(self) -> None:
                self.rfile.read(int(self.headers.get("Content-Length", "0")))
                server.requests += 1
                auth = self.headers.get("Authorization", "")
                body: dict[str, Any]
                if server.mode == "401":
                    body = {"error": {"message": f"Incorrect API key provided: {auth}", "type": "invalid_request"}}
                    self._send(401, body)
                else:
                    choice = {"index": 0, "text": f"my key is {auth}", "finish_reason": "stop", "logprobs": None}
                    usage = {"prompt_tokens": 1, "completion_tokens": 4, "total_tokens": 5}
                    body = {"id": "x", "object": "text_completion", "created": 0, "model": "m", "choices": [choice]}
                    self._send(200, body | {"usage": usage, "system_fingerprint": auth})

            def _send(self, code: int, body: dict[str, Any]) -> None:
                data = json.dumps(body).encode()
                self.send_response(code)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        threading.Thread(target=self._server.serve_forever, daemon=True).start()

    @property
    def base_url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}/v1"

    def close(self) -> None:
        self._server.shutdown()
        self._server.server_close()


@pytest.fixture
def echo(monkeypatch: pytest.MonkeyPatch) -> Iterator[EchoServer]:
    monkeypatch.setenv(KEY_ENV, KEY)
    server = EchoServer()
    yield server
    server.close()


def test_the_provider_scrubs_its_key_from_errors_and_raw_outputs(echo: EchoServer) -> None:
    provider = OpenAIProvider(base_url=echo.base_url, api_key_env=KEY_ENV)
    with pytest.raises(ProviderError) as refused:
        provider.complete(LLMRequest(model="m", prompt="p"))
    assert KEY not in str(refused.value) and f"Bearer {REDACTED}" in str(refused.value)
    assert KEY not in "".join(traceback.format_exception(refused.value))  # the SDK's error is not chained
    echo.mode = "200"
    response = provider.complete(LLMRequest(model="m", prompt="p"))
    assert response.text == f"my key is Bearer {REDACTED}"
    assert KEY not in json.dumps(response.raw)


def test_bedrock_scrubs_the_aws_secrets_of_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    import boto3
    from botocore.stub import Stubber

    from evalplatform.llm.providers.bedrock import BedrockProvider

    aws_secret = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", aws_secret)
    client = boto3.client(
        "bedrock-runtime", region_name="us-east-1", aws_access_key_id="AKIDEXAMPLE", aws_secret_access_key="x"
    )
    with Stubber(client) as stubber:
        stubber.add_client_error(
            "converse", "AccessDeniedException", f"signature for {aws_secret} does not match", http_status_code=403
        )
        with pytest.raises(ProviderError) as refused:
            BedrockProvider(client=client).complete(LLMRequest(model="anthropic.claude-3-haiku", prompt="p"))
    assert aws_secret not in str(refused.value) and REDACTED in str(refused.value)
    assert refused.value.__cause__ is None


@pytest.mark.django_db
def test_an_echoed_key_is_stored_nowhere_shown_nowhere_exported_nowhere(
    echo: EchoServer, world: World, django_capture_on_commit_callbacks: Callable[..., Any]
) -> None:
    for name, mode in (("echo-401", "401"), ("echo-200", "200")):
        echo.mode = mode
        ModelEndpoint.objects.create(
            name=name,
            provider="openai_compatible",
            model_id="m",
            base_url=echo.base_url,
            mode="completion",
            api_key_env=KEY_ENV,
            max_attempts=1,
        )
        with django_capture_on_commit_callbacks(execute=True):
            run = run_launch(
                dataset=world.dataset, spec={"models": [name], "limit": 1}, actor=world.users["researcher"]
            )
        generation = Generation.objects.get(run=run)
        stored = Generation.objects.filter(pk=generation.pk).values_list("error", "text").get()
        assert KEY not in "".join(stored) and REDACTED in "".join(stored), stored
        client = client_for(world, "researcher")
        for url in (
            f"/api/runs/{run.pk}/generations/{generation.pk}/",
            f"/api/runs/{run.pk}/export/generations.csv",
            f"/api/runs/{run.pk}/export/generations.jsonl",
            f"/runs/{run.pk}/generations/{generation.pk}/",
        ):
            response = client.get(url)
            assert response.status_code == 200 and KEY not in content_of(response), url
    assert echo.requests == 2


@pytest.mark.django_db
def test_storage_scrubs_secrets_however_they_are_written(monkeypatch: pytest.MonkeyPatch, world: World) -> None:
    monkeypatch.setenv(KEY_ENV, KEY)
    generation = world.generations[0]
    Generation.objects.filter(pk=generation.pk).update(error=f"proxy said: {KEY}")  # update() skips save()
    assert Generation.objects.values_list("error", flat=True).get(pk=generation.pk) == f"proxy said: {REDACTED}"
    score = GenerationScore.objects.filter(generation=generation).first()
    assert score is not None
    score.raw_output = f"<{KEY}>"
    score.details = {"error": f"x {KEY}", KEY: [KEY]}
    score.save()
    row = GenerationScore.objects.values("raw_output", "details").get(pk=score.pk)
    assert KEY not in json.dumps(row) and row["raw_output"] == f"<{REDACTED}>"


@pytest.mark.parametrize("name", ["DATABASE_URL", "SECRET_KEY", "PATH", "HOME", "CELERY_BROKER_URL"])
def test_api_key_env_must_name_a_key_variable(name: str) -> None:
    endpoint = ModelEndpoint(name="e", provider="openai_compatible", model_id="m", api_key_env=name)
    with pytest.raises(ValidationError) as refused:
        endpoint.full_clean(validate_unique=False, validate_constraints=False)
    assert "api_key_env" in refused.value.message_dict


@pytest.mark.parametrize("name", ["", "OPENAI_API_KEY", "HF_TOKEN", "AWS_BEARER_TOKEN_BEDROCK", "AWS_PROFILE"])
def test_key_like_names_are_accepted(name: str) -> None:
    ModelEndpoint(name="e", provider="openai", model_id="m", api_key_env=name).full_clean(
        validate_unique=False, validate_constraints=False
    )


def test_the_allow_list_setting_admits_another_name(settings) -> None:
    endpoint = ModelEndpoint(name="e", provider="openai", model_id="m", api_key_env="VENDOR_SECRET")
    with pytest.raises(ValidationError):
        endpoint.full_clean(validate_unique=False, validate_constraints=False)
    settings.API_KEY_ENV_ALLOWLIST = ["VENDOR_SECRET"]
    endpoint.full_clean(validate_unique=False, validate_constraints=False)


@pytest.mark.django_db
def test_the_admin_refuses_database_url_as_a_key_variable() -> None:
    admin = User.objects.create_superuser("root", password="a-long-test-password-1")
    client = Client()
    client.force_login(admin)
    form = {
        "name": "sneaky",
        "provider": "openai_compatible",
        "model_id": "m",
        "base_url": "http://127.0.0.1:9/v1",
        "mode": "completion",
        "default_temperature": "0.2",
        "default_top_p": "0.9",
        "default_max_tokens": "64",
        "price_input_per_mtok": "0",
        "price_output_per_mtok": "0",
        "api_key_env": "DATABASE_URL",
        "max_concurrency": "1",
        "rate_limit_per_s": "0",
        "timeout_s": "5",
        "max_attempts": "1",
        "is_active": "on",
    }
    response = client.post("/admin/runs/modelendpoint/add/", form)
    assert response.status_code == 200 and b"*_API_KEY" in response.content
    assert not ModelEndpoint.objects.filter(name="sneaky").exists()
    response = client.post("/admin/runs/modelendpoint/add/", form | {"api_key_env": "VENDOR_API_KEY"})
    assert response.status_code == 302 and ModelEndpoint.objects.filter(name="sneaky").exists()


@pytest.mark.django_db
def test_a_row_written_round_the_validation_is_never_called(
    echo: EchoServer, world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DATABASE_URL", "postgres://user:db-password-never-sent@db/x")
    sneaky = ModelEndpoint.objects.create(
        name="sneaky", provider="openai_compatible", model_id="m", base_url=echo.base_url, api_key_env="DATABASE_URL"
    )
    with pytest.raises(SpecError, match="sneaky"):
        run_launch(dataset=world.dataset, spec={"models": ["sneaky"]}, actor=world.users["researcher"])
    api = client_for(world, "researcher").post(
        "/api/runs/", {"dataset": "dkd-mini", "models": ["sneaky"]}, format="json"
    )
    assert api.status_code == 400 and b"sneaky" in api.content
    with pytest.raises(ProviderError, match="does not name a key variable"):
        provider_for(sneaky)
    assert echo.requests == 0 and not Run.objects.filter(spec__models=["sneaky"]).exists()


@pytest.mark.django_db
def test_an_error_is_scrubbed_before_it_is_cut(monkeypatch: pytest.MonkeyPatch, world: World) -> None:
    """A key straddling the 2000th character: cut first, its prefix would escape the scrub."""
    from evalplatform.runs.services import generation_mark_failed

    monkeypatch.setenv(KEY_ENV, KEY)
    generation = world.generations[0]
    # The cell is pending again, and the run's counters with it (each stage gives it one unit).
    Generation.objects.filter(pk=generation.pk).update(status=Generation.Status.PENDING)
    StageProgress.objects.filter(run=world.run).update(done=F("done") - F("per_cell"))
    per_cell = sum(StageProgress.objects.filter(run=world.run).values_list("per_cell", flat=True))
    Run.objects.filter(pk=world.run.pk).update(progress_done=F("progress_done") - per_cell)
    assert generation_mark_failed(generation_id=generation.pk, error="x" * 1990 + KEY)
    stored = Generation.objects.values_list("error", flat=True).get(pk=generation.pk)
    assert KEY[:10] not in stored and stored.startswith("x" * 1990)
