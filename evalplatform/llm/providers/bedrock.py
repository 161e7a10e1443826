"""AWS Bedrock through boto3's ``bedrock-runtime`` Converse API.

Converse carries temperature, topP, maxTokens and stopSequences in ``inferenceConfig``. top_k is not
part of it: it goes in ``additionalModelRequestFields`` under the name the model family uses, per the
Bedrock model-parameter pages (``TOP_K_FIELD`` below). Families not listed there take no top_k
(Meta Llama on Bedrock accepts only temperature, top_p and max_gen_len), so the value is dropped for
them and a debug line says so; it still counts in the cache key because it is part of the request.
Converse has no seed and no grammar; a JSON schema is not sent (judge outputs are parsed strictly and
repaired once instead). Throttling, 5xx and model timeouts map to ``TransientProviderError``. The AWS secrets of
the environment (``AWS_SECRET_ACCESS_KEY``, ``AWS_SESSION_TOKEN``, ``AWS_BEARER_TOKEN_BEDROCK``...) are scrubbed
from every error message and raw response it makes, raised without botocore's exception chained.
"""

from __future__ import annotations

import logging
import os
import time
from typing import Any

from evalplatform.llm.errors import ProviderError, TransientProviderError
from evalplatform.llm.redaction import environment_secrets, redact, redact_json
from evalplatform.llm.types import LLMRequest, LLMResponse

log = logging.getLogger(__name__)

# Model-id prefix (after any cross-region profile prefix) -> the field that carries top_k.
TOP_K_FIELD: dict[str, str] = {
    "anthropic.": "top_k",  # Anthropic Claude Messages API parameters
    "mistral.mistral-7b": "top_k",  # Mistral AI text completion parameters
    "mistral.mixtral-8x7b": "top_k",
    "cohere.command": "k",  # Cohere Command / Command R parameters
}
# Cross-region inference profiles prefix the model id with a geography.
_PROFILE_PREFIXES = ("us.", "eu.", "apac.", "us-gov.", "global.")
TRANSIENT_CODES = frozenset(
    {
        "ThrottlingException",
        "ServiceUnavailableException",
        "InternalServerException",
        "ModelTimeoutException",
        "ModelNotReadyException",
        "TooManyRequestsException",
    }
)


def top_k_field(model_id: str) -> str | None:
    """The ``additionalModelRequestFields`` key for top_k on this model, or None if it takes none."""
    base = model_id
    for prefix in _PROFILE_PREFIXES:
        if base.startswith(prefix):
            base = base[len(prefix) :]
            break
    for prefix, field_name in TOP_K_FIELD.items():
        if base.startswith(prefix):
            return field_name
    return None


class BedrockProvider:
    """``BedrockProvider(region_name="us-east-1")``; pass ``client`` to reuse (or stub) a boto3 client.

    Credentials come from boto3's usual chain (environment, profile, instance role); none is stored here.
    """

    def __init__(
        self,
        region_name: str = "us-east-1",
        *,
        client: Any | None = None,
        timeout: float = 60.0,
        name: str = "bedrock",
    ) -> None:
        self.region_name = region_name
        self.timeout = timeout
        self._name = name
        if client is None:
            import boto3
            from botocore.config import Config

            # total_max_attempts=1: our retry layer owns retries.
            config = Config(
                retries={"total_max_attempts": 1, "mode": "standard"},
                read_timeout=timeout,
                connect_timeout=min(timeout, 10.0),
            )
            client = boto3.client("bedrock-runtime", region_name=region_name, config=config)
        self._client = client

    @property
    def name(self) -> str:
        return self._name

    def __repr__(self) -> str:
        return f"BedrockProvider(region_name={self.region_name!r}, name={self._name!r})"

    def request_params(self, request: LLMRequest) -> dict[str, Any]:
        """The keyword arguments of ``converse`` for ``request``."""
        system: list[dict[str, str]] = []
        messages: list[dict[str, Any]] = []
        if request.mode == "completion":
            messages.append({"role": "user", "content": [{"text": request.prompt or ""}]})
        else:
            assert request.messages is not None
            for message in request.messages:
                if message.role == "system":
                    system.append({"text": message.content})
                else:
                    messages.append({"role": message.role, "content": [{"text": message.content}]})
        inference: dict[str, Any] = {"maxTokens": request.max_tokens, "temperature": request.temperature}
        if request.top_p is not None:
            inference["topP"] = request.top_p
        if request.stop:
            inference["stopSequences"] = list(request.stop)
        params: dict[str, Any] = {
            "modelId": request.model,
            "messages": messages,
            "inferenceConfig": inference,
        }
        if system:
            params["system"] = system
        if request.top_k is not None:
            field_name = top_k_field(request.model)
            if field_name is None:
                log.debug("model %s takes no top_k on Bedrock; top_k=%s dropped", request.model, request.top_k)
            else:
                params["additionalModelRequestFields"] = {field_name: request.top_k}
        return params

    def complete(self, request: LLMRequest) -> LLMResponse:
        from botocore.exceptions import (
            BotoCoreError,
            ClientError,
            ConnectTimeoutError,
            ReadTimeoutError,
        )
        from botocore.exceptions import (
            ConnectionError as BotoConnectionError,
        )

        params = self.request_params(request)
        started = time.perf_counter()
        try:
            result = self._client.converse(**params)
        except ClientError as exc:
            error = exc.response.get("Error", {})
            code = str(error.get("Code", ""))
            status = int(exc.response.get("ResponseMetadata", {}).get("HTTPStatusCode", 0) or 0)
            message = self._scrub(f"{code}: {error.get('Message', '')}")
            if code in TRANSIENT_CODES or status >= 500 or status == 429:
                raise TransientProviderError(message) from None
            raise ProviderError(message) from None
        except (ReadTimeoutError, ConnectTimeoutError, BotoConnectionError) as exc:
            raise TransientProviderError(self._scrub(f"{type(exc).__name__}: {exc}")) from None
        except BotoCoreError as exc:
            raise ProviderError(self._scrub(f"{type(exc).__name__}: {exc}")) from None
        latency = time.perf_counter() - started
        content = result.get("output", {}).get("message", {}).get("content", [])
        text = "".join(block.get("text", "") for block in content if isinstance(block, dict))
        usage = result.get("usage", {})
        metrics = result.get("metrics", {})
        secrets = _aws_secrets()
        raw = redact_json({key: value for key, value in result.items() if key != "ResponseMetadata"}, secrets)
        return LLMResponse(
            text=redact(text, secrets),
            finish_reason=result.get("stopReason"),
            input_tokens=int(usage.get("inputTokens", 0)),
            output_tokens=int(usage.get("outputTokens", 0)),
            latency_s=float(metrics["latencyMs"]) / 1000.0 if "latencyMs" in metrics else latency,
            raw=raw,
        )

    def _scrub(self, message: str) -> str:
        return redact(f"{self.name}: {message}", _aws_secrets())


def _aws_secrets() -> list[str]:
    """The AWS secrets of the environment (read at each use, never kept on the provider)."""
    return environment_secrets({name: value for name, value in os.environ.items() if name.startswith("AWS_")})
