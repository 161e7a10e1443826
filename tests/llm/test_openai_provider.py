from __future__ import annotations

import logging

import pytest

from evalplatform.llm.client import LLMClient
from evalplatform.llm.errors import ProviderError
from evalplatform.llm.providers.openai_provider import OpenAIProvider
from evalplatform.llm.retry import RetryPolicy
from evalplatform.llm.types import ChatMessage, LLMRequest
from tests.llm.fake_openai_server import FakeOpenAIServer, garbage_body, json_body, ok

SCHEMA = {"type": "object", "properties": {"verdict": {"type": "string"}}, "required": ["verdict"]}


def test_completion_mode_posts_to_completions_with_top_k_and_grammar_in_the_body(
    fake_server: FakeOpenAIServer,
) -> None:
    fake_server.script(ok(" Marta Kowal"))
    provider = OpenAIProvider(base_url=fake_server.base_url)
    request = LLMRequest(
        model="m",
        prompt="Q:",
        temperature=0.2,
        top_p=0.9,
        top_k=50,
        seed=7,
        stop=("\n",),
        grammar='root ::= "a"',
    )
    response = provider.complete(request)
    assert response.text == " Marta Kowal"
    assert (response.finish_reason, response.input_tokens, response.output_tokens) == ("stop", 1, 2)
    sent = fake_server.requests[0]
    assert sent["path"] == "/v1/completions"
    body = sent["body"]
    assert body["prompt"] == "Q:"
    assert (body["temperature"], body["top_p"], body["top_k"], body["seed"]) == (0.2, 0.9, 50, 7)
    assert body["stop"] == ["\n"]
    assert body["grammar"] == 'root ::= "a"'


def test_chat_mode_posts_messages_and_json_schema_as_response_format(fake_server: FakeOpenAIServer) -> None:
    provider = OpenAIProvider(base_url=fake_server.base_url)
    request = LLMRequest(model="m", messages=(ChatMessage("system", "s"), ChatMessage("user", "u")), json_schema=SCHEMA)
    provider.complete(request)
    sent = fake_server.requests[0]
    assert sent["path"] == "/v1/chat/completions"
    assert sent["body"]["messages"] == [{"role": "system", "content": "s"}, {"role": "user", "content": "u"}]
    assert sent["body"]["response_format"]["json_schema"]["schema"] == SCHEMA


def test_openai_dialect_sends_no_fields_openai_rejects(fake_server: FakeOpenAIServer) -> None:
    provider = OpenAIProvider(base_url=fake_server.base_url, dialect="openai")
    provider.complete(LLMRequest(model="m", prompt="p", top_k=50, grammar="g"))
    body = fake_server.requests[0]["body"]
    assert "top_k" not in body and "grammar" not in body


def test_vllm_dialect_uses_guided_fields() -> None:
    provider = OpenAIProvider(base_url="http://127.0.0.1:1/v1", dialect="vllm")
    params = provider.request_params(LLMRequest(model="m", prompt="p", top_k=5, grammar="g", json_schema=SCHEMA))
    assert params["extra_body"] == {"top_k": 5, "guided_grammar": "g", "guided_json": SCHEMA}


def test_garbage_body_is_a_permanent_provider_error(fake_server: FakeOpenAIServer) -> None:
    fake_server.script(garbage_body(), ok("never reached"))
    client = LLMClient(
        OpenAIProvider(base_url=fake_server.base_url),
        endpoint_name="e",
        retry_policy=RetryPolicy(max_attempts=3),
    )
    with pytest.raises(ProviderError, match="malformed response"):
        client.call(LLMRequest(model="m", prompt="p"), prompt_version="v")
    assert len(fake_server.requests) == 1


@pytest.mark.parametrize(
    "payload",
    [
        {"object": "error", "detail": "not a completion"},  # no choices
        {"choices": []},
        {"choices": [None]},
        ["a", "list"],
        {"choices": [{"index": 0}]},  # a chat choice without its message
    ],
)
def test_json_that_is_not_a_completion_is_a_malformed_response(fake_server: FakeOpenAIServer, payload: object) -> None:
    fake_server.script(json_body(payload))
    provider = OpenAIProvider(base_url=fake_server.base_url)
    with pytest.raises(ProviderError, match="malformed response"):
        provider.complete(LLMRequest(model="m", messages=(ChatMessage("user", "u"),)))


def test_the_raw_response_is_the_servers_json_with_its_own_fields(fake_server: FakeOpenAIServer) -> None:
    """A null content is an empty answer; what the server adds (llama.cpp's timings) is kept in the raw response."""
    reply = {
        "id": "c1",
        "object": "chat.completion",
        "choices": [{"index": 0, "message": {"role": "assistant", "content": None}, "finish_reason": "length"}],
        "usage": {"prompt_tokens": 4, "completion_tokens": 9, "total_tokens": 13},
        "timings": {"predicted_ms": 12.5},
    }
    fake_server.script(json_body(reply))
    response = OpenAIProvider(base_url=fake_server.base_url).complete(
        LLMRequest(model="m", messages=(ChatMessage("user", "u"),))
    )
    assert (response.text, response.finish_reason, response.input_tokens, response.output_tokens) == (
        "",
        "length",
        4,
        9,
    )
    assert response.raw["timings"] == {"predicted_ms": 12.5}
    assert response.raw["choices"][0]["message"]["content"] is None


def test_missing_key_for_the_openai_api_is_a_clear_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("EVALPLATFORM_TEST_KEY", raising=False)
    with pytest.raises(ProviderError, match="EVALPLATFORM_TEST_KEY is not set"):
        OpenAIProvider(api_key_env="EVALPLATFORM_TEST_KEY")


def test_api_key_never_appears_in_repr_or_logs(
    fake_server: FakeOpenAIServer, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    secret = "sk-test-PLANTED-0123456789abcdef"
    monkeypatch.setenv("EVALPLATFORM_TEST_KEY", secret)
    caplog.set_level(logging.DEBUG)
    provider = OpenAIProvider(base_url=fake_server.base_url, api_key_env="EVALPLATFORM_TEST_KEY")
    client = LLMClient(provider, endpoint_name="e")
    logging.getLogger("test").info("provider %r client %r vars %r", provider, client, vars(provider))
    client.call(LLMRequest(model="m", prompt="p"), prompt_version="v")
    # the key did reach the server, as a bearer token ...
    headers = {key.lower(): value for key, value in fake_server.requests[0]["headers"].items()}
    assert headers["authorization"] == f"Bearer {secret}"
    # ... but none of our objects shows it, and nothing logged it (SDK and HTTP debug logs included)
    assert secret not in repr(provider) and secret not in repr(client) and secret not in str(vars(provider))
    assert "EVALPLATFORM_TEST_KEY" in repr(provider)
    assert caplog.records, "debug logging was captured"
    assert secret not in caplog.text
