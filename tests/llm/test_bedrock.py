"""Bedrock through botocore's Stubber: requests and responses are validated against the real
bedrock-runtime service model shipped with botocore (the only stub here: a paid cloud)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import boto3
import pytest
from botocore.stub import Stubber

from evalplatform.llm.client import LLMClient
from evalplatform.llm.errors import ProviderError, TransientProviderError
from evalplatform.llm.providers.bedrock import BedrockProvider, top_k_field
from evalplatform.llm.retry import RetryPolicy
from evalplatform.llm.types import ChatMessage, LLMRequest
from tests.llm.conftest import RecordingSleep

HAIKU = "anthropic.claude-3-haiku-20240307-v1:0"
LLAMA = "meta.llama3-8b-instruct-v1:0"


@pytest.fixture
def stubbed() -> Iterator[tuple[BedrockProvider, Stubber]]:
    client = boto3.client(
        "bedrock-runtime", region_name="us-east-1", aws_access_key_id="AKIDEXAMPLE", aws_secret_access_key="x"
    )
    with Stubber(client) as stubber:
        yield BedrockProvider(client=client), stubber
        stubber.assert_no_pending_responses()


def _reply(text: str, stop: str = "end_turn") -> dict[str, Any]:
    return {
        "output": {"message": {"role": "assistant", "content": [{"text": text}]}},
        "stopReason": stop,
        "usage": {"inputTokens": 12, "outputTokens": 3, "totalTokens": 15},
        "metrics": {"latencyMs": 250},
    }


def test_chat_request_maps_to_converse_with_system_inference_config_and_top_k(
    stubbed: tuple[BedrockProvider, Stubber],
) -> None:
    provider, stubber = stubbed
    expected = {
        "modelId": HAIKU,
        "system": [{"text": "Be brief."}],
        "messages": [{"role": "user", "content": [{"text": "Who designed it?"}]}],
        "inferenceConfig": {"maxTokens": 32, "temperature": 0.2, "topP": 0.9, "stopSequences": ["\n"]},
        "additionalModelRequestFields": {"top_k": 50},
    }
    stubber.add_response("converse", _reply("Marta Kowal"), expected)
    request = LLMRequest(
        model=HAIKU,
        messages=(ChatMessage("system", "Be brief."), ChatMessage("user", "Who designed it?")),
        temperature=0.2,
        top_p=0.9,
        top_k=50,
        max_tokens=32,
        stop=("\n",),
    )
    response = provider.complete(request)
    assert (response.text, response.finish_reason) == ("Marta Kowal", "end_turn")
    assert (response.input_tokens, response.output_tokens, response.latency_s) == (12, 3, 0.25)


def test_completion_prompt_becomes_one_user_message_and_llama_gets_no_top_k(
    stubbed: tuple[BedrockProvider, Stubber],
) -> None:
    provider, stubber = stubbed
    expected = {
        "modelId": LLAMA,
        "messages": [{"role": "user", "content": [{"text": "Context: x\nAnswer:"}]}],
        "inferenceConfig": {"maxTokens": 8, "temperature": 0.0},
    }
    stubber.add_response("converse", _reply(" x", "max_tokens"), expected)
    response = provider.complete(LLMRequest(model=LLAMA, prompt="Context: x\nAnswer:", top_k=50, max_tokens=8))
    assert response.finish_reason == "max_tokens"


def test_top_k_field_table_and_cross_region_profiles() -> None:
    assert top_k_field(HAIKU) == "top_k"
    assert top_k_field("us." + HAIKU) == "top_k"
    assert top_k_field("mistral.mixtral-8x7b-instruct-v0:1") == "top_k"
    assert top_k_field("cohere.command-r-v1:0") == "k"
    assert top_k_field(LLAMA) is None


@pytest.mark.parametrize("code", ["ThrottlingException", "ServiceUnavailableException", "InternalServerException"])
def test_throttling_and_5xx_are_transient(stubbed: tuple[BedrockProvider, Stubber], code: str) -> None:
    provider, stubber = stubbed
    status = 429 if code == "ThrottlingException" else 503 if code == "ServiceUnavailableException" else 500
    stubber.add_client_error("converse", service_error_code=code, http_status_code=status)
    with pytest.raises(TransientProviderError, match=code):
        provider.complete(LLMRequest(model=HAIKU, prompt="p"))


def test_validation_error_is_permanent(stubbed: tuple[BedrockProvider, Stubber]) -> None:
    provider, stubber = stubbed
    stubber.add_client_error("converse", service_error_code="ValidationException", http_status_code=400)
    with pytest.raises(ProviderError, match="ValidationException"):
        provider.complete(LLMRequest(model=HAIKU, prompt="p"))


def test_throttled_then_answered_through_the_client_retry(
    stubbed: tuple[BedrockProvider, Stubber], no_sleep: RecordingSleep
) -> None:
    provider, stubber = stubbed
    stubber.add_client_error("converse", service_error_code="ThrottlingException", http_status_code=429)
    stubber.add_response("converse", _reply('{"verdict": "valid"}'))
    client = LLMClient(
        provider,
        endpoint_name="bedrock",
        retry_policy=RetryPolicy(max_attempts=3),
        sleep=no_sleep,
        price_in=0.25,
        price_out=1.25,  # Claude 3 Haiku list prices, USD per million tokens
    )
    response = client.call(LLMRequest(model=HAIKU, prompt="p"), prompt_version="v")
    assert response.text == '{"verdict": "valid"}'
    assert len(no_sleep.waits) == 1
    # 12 * 0.25 / 1e6 + 3 * 1.25 / 1e6
    assert response.cost_usd == pytest.approx(6.75e-6)


def test_repr_shows_no_credentials() -> None:
    provider = BedrockProvider(client=object(), region_name="eu-west-1")
    assert repr(provider) == "BedrockProvider(region_name='eu-west-1', name='bedrock')"
