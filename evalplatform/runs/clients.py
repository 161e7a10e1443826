"""Calling a ModelEndpoint row: its client (the provider, the shared cache, the endpoint's limiter), and how
its requests are shaped (chat or completion, which output constraint it understands).

The pipeline calls models only through the client made here; no vendor SDK is imported elsewhere."""

import json
import threading

from django.conf import settings

from evalplatform.llm.client import LLMClient
from evalplatform.llm.errors import ProviderError
from evalplatform.llm.local_server import ensure_local_server
from evalplatform.llm.pricing import Budget
from evalplatform.llm.prompts.base import Constrain
from evalplatform.llm.providers.base import Provider
from evalplatform.llm.providers.bedrock import BedrockProvider
from evalplatform.llm.providers.openai_provider import OpenAIProvider
from evalplatform.llm.redaction import key_env_allowed
from evalplatform.llm.retry import RetryPolicy
from evalplatform.llm.types import LLMResponse, Mode
from evalplatform.runs.limits import shared_limiter
from evalplatform.runs.models import CachedResponse, ModelEndpoint
from evalplatform.single_writes import insert_ignoring_conflict

# Seconds added to a concurrency slot's lease beyond its call's longest time.
LEASE_MARGIN_S = 30.0


class DatabaseResponseCache:
    """The response cache in the database, so every worker on every machine shares it."""

    def __init__(self, *, provider: str, model_id: str) -> None:
        self.provider = provider
        self.model_id = model_id

    def get(self, key: str) -> LLMResponse | None:
        row = CachedResponse.objects.filter(key=key).values_list("response", flat=True).first()
        return None if row is None else LLMResponse.from_json(json.dumps(row))

    def put(self, key: str, response: LLMResponse) -> None:
        # Two workers answering the same request race harmlessly: the first one stays. One statement, no
        # transaction of its own (every provider call stores its response here).
        insert_ignoring_conflict(
            CachedResponse(
                key=key, provider=self.provider, model_id=self.model_id, response=json.loads(response.to_json())
            )
        )


_providers: dict[tuple[object, ...], Provider] = {}
_providers_lock = threading.Lock()


def provider_for(endpoint: ModelEndpoint) -> Provider:
    """The backend of an endpoint, built once per process and connection settings (an SDK client loads its TLS
    certificates and opens its connection pool when it is made: 40 ms of CPU a task when it was made per task). An
    endpoint whose api_key_env does not look like a key variable (a row written round the model's validation) is
    refused before anything is read from the environment or sent."""
    key = (
        endpoint.provider,
        endpoint.base_url,
        endpoint.model_id,
        endpoint.api_key_env,
        endpoint.region,
        endpoint.timeout_s,
    )
    if not key_env_allowed(endpoint.api_key_env, settings.API_KEY_ENV_ALLOWLIST):
        raise ProviderError(
            f"endpoint {endpoint.name}: api_key_env {endpoint.api_key_env!r} does not name a key variable "
            "(*_API_KEY, *_TOKEN, AWS_* or EVALPLATFORM_API_KEY_ENV_ALLOWLIST); nothing was sent"
        )
    with _providers_lock:
        provider = _providers.get(key)
        if provider is None:
            provider = _providers[key] = _new_provider(endpoint)
        return provider


def _new_provider(endpoint: ModelEndpoint) -> Provider:
    """The backend of an endpoint. The local endpoint starts the packaged llama.cpp server on demand."""
    kind = endpoint.provider
    if kind == ModelEndpoint.Provider.LOCAL:
        return OpenAIProvider(
            base_url=ensure_local_server(),
            api_key_env="",
            timeout=endpoint.timeout_s,
            dialect="llamacpp",
            name=f"local:{endpoint.model_id}",
        )
    if kind == ModelEndpoint.Provider.OPENAI:
        return OpenAIProvider(
            base_url=None,
            api_key_env=endpoint.api_key_env or "OPENAI_API_KEY",
            timeout=endpoint.timeout_s,
            dialect="openai",
        )
    if kind == ModelEndpoint.Provider.OPENAI_COMPATIBLE:
        return OpenAIProvider(base_url=endpoint.base_url, api_key_env=endpoint.api_key_env, timeout=endpoint.timeout_s)
    if kind == ModelEndpoint.Provider.BEDROCK:
        return BedrockProvider(region_name=endpoint.region or "us-east-1", timeout=endpoint.timeout_s)
    raise ValueError(f"endpoint {endpoint.name}: unknown provider {kind!r}")


def client_for(
    endpoint: ModelEndpoint, *, budget: Budget | None = None, use_cache: bool = True, provider: Provider | None = None
) -> LLMClient:
    """A client with the shared database cache (unless disabled), the endpoint's concurrency and rate limit,
    its prices, and an optional budget."""
    backend = provider or provider_for(endpoint)
    return LLMClient(
        backend,
        endpoint_name=endpoint.name,
        cache=DatabaseResponseCache(provider=backend.name, model_id=endpoint.model_id) if use_cache else None,
        limiter=shared_limiter(
            endpoint.name,
            concurrency=endpoint.max_concurrency or None,
            rate_per_s=endpoint.rate_limit_per_s or None,
            # A slot whose worker died frees itself after the longest a call may take, with its retries.
            lease_s=endpoint.timeout_s * max(1, endpoint.max_attempts) + LEASE_MARGIN_S,
        ),
        retry_policy=RetryPolicy(max_attempts=max(1, endpoint.max_attempts)),
        price_in=float(endpoint.price_input_per_mtok),
        price_out=float(endpoint.price_output_per_mtok),
        budget=budget,
    )


def mode_for(endpoint: ModelEndpoint) -> Mode:
    return "chat" if endpoint.mode == ModelEndpoint.Mode.CHAT else "completion"


def constraint_for(endpoint: ModelEndpoint) -> Constrain:
    """llama.cpp takes grammars; OpenAI-style servers a JSON schema; Bedrock's Converse neither."""
    if endpoint.provider == ModelEndpoint.Provider.LOCAL:
        return "grammar"
    if endpoint.provider == ModelEndpoint.Provider.BEDROCK:
        return "none"
    return "json_schema" if endpoint.mode == ModelEndpoint.Mode.CHAT else "grammar"
