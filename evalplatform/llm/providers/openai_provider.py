"""OpenAI and any OpenAI-compatible server (llama.cpp, vLLM, Ollama) through the official SDK.

The API key is read from the environment variable *named* in the configuration and handed to the SDK
client; its ``repr`` shows only the variable's name, and the key is scrubbed from every error message and raw
response this provider makes (a server may echo it), which are raised without the SDK's exception chained.

``dialect`` says which extensions the server understands, since OpenAI itself rejects unknown fields:
- ``openai``: no top_k, no grammar; ``json_schema`` becomes ``response_format`` (chat only).
- ``llamacpp`` (llama-cpp-python server): ``top_k`` and ``grammar`` (GBNF) in ``extra_body``;
  ``json_schema`` becomes ``response_format`` in chat mode when no grammar is given.
- ``vllm``: ``top_k`` in ``extra_body``; grammar as ``guided_grammar``, schema as ``guided_json``.
"""

from __future__ import annotations

import os
import time
from typing import Any, Literal

import openai

from evalplatform.llm.errors import ProviderError, TransientProviderError
from evalplatform.llm.redaction import redact, redact_json
from evalplatform.llm.types import LLMRequest, LLMResponse

Dialect = Literal["openai", "llamacpp", "vllm"]
DIALECTS: tuple[Dialect, ...] = ("openai", "llamacpp", "vllm")
# Placeholder sent to local servers that need no key (the SDK insists on one).
NO_KEY = "not-needed"


class OpenAIProvider:
    """``OpenAIProvider(base_url=None, api_key_env="OPENAI_API_KEY", timeout=60.0)``."""

    def __init__(
        self,
        base_url: str | None = None,
        api_key_env: str = "OPENAI_API_KEY",
        timeout: float = 60.0,
        *,
        dialect: Dialect | None = None,
        name: str | None = None,
    ) -> None:
        self.base_url = base_url
        self.api_key_env = api_key_env
        self.timeout = timeout
        self.dialect: Dialect = dialect or ("openai" if base_url is None else "llamacpp")
        if self.dialect not in DIALECTS:
            raise ValueError(f"unknown dialect {self.dialect!r}; expected one of {DIALECTS}")
        self._name = name or ("openai" if base_url is None else f"openai-compatible:{base_url}")
        key = os.environ.get(api_key_env) if api_key_env else None
        if not key:
            if base_url is None:
                raise ProviderError(f"environment variable {api_key_env} is not set")
            key = NO_KEY
        # max_retries=0: our retry layer owns retries.
        self._client = openai.OpenAI(api_key=key, base_url=base_url, timeout=timeout, max_retries=0)

    @property
    def name(self) -> str:
        return self._name

    def __repr__(self) -> str:
        return (
            f"OpenAIProvider(base_url={self.base_url!r}, api_key_env={self.api_key_env!r}, "
            f"timeout={self.timeout!r}, dialect={self.dialect!r})"
        )

    def close(self) -> None:
        self._client.close()

    def request_params(self, request: LLMRequest) -> dict[str, Any]:
        """The request's parameters, as the SDK's ``create`` takes them (the dialect's extensions in
        ``extra_body``, which ``complete`` merges into the body it posts); public so that tests can inspect them."""
        params: dict[str, Any] = {"model": request.model, "temperature": request.temperature}
        params["max_tokens"] = request.max_tokens
        if request.top_p is not None:
            params["top_p"] = request.top_p
        if request.seed is not None:
            params["seed"] = request.seed
        if request.stop:
            params["stop"] = list(request.stop)
        extra: dict[str, Any] = {}
        if request.top_k is not None and self.dialect != "openai":
            extra["top_k"] = request.top_k
        if request.grammar is not None:
            if self.dialect == "llamacpp":
                extra["grammar"] = request.grammar
            elif self.dialect == "vllm":
                extra["guided_grammar"] = request.grammar
        if request.json_schema is not None:
            if self.dialect == "vllm":
                extra["guided_json"] = request.json_schema
            elif request.mode == "chat" and not (self.dialect == "llamacpp" and request.grammar):
                params["response_format"] = {
                    "type": "json_schema",
                    "json_schema": {"name": "output", "schema": request.json_schema, "strict": True},
                }
        if extra:
            params["extra_body"] = extra
        if request.mode == "chat":
            assert request.messages is not None
            params["messages"] = [{"role": m.role, "content": m.content} for m in request.messages]
        else:
            params["prompt"] = request.prompt
        return params

    def complete(self, request: LLMRequest) -> LLMResponse:
        params = self.request_params(request)
        body = {key: value for key, value in params.items() if key != "extra_body"} | params.get("extra_body", {})
        path = "/chat/completions" if request.mode == "chat" else "/completions"
        started = time.perf_counter()
        try:
            # The SDK's own POST (its auth, headers, timeout and error mapping), with the body as it is and the
            # reply as the server's JSON (``cast_to=object``; a body that is not JSON comes back as its text):
            # ``completions.create`` also transforms the parameters and builds a response model, which was dumped
            # back to JSON here, about 0.2 ms of CPU a call (issue 15; benchmarks/bench_provider_cpu.py).
            raw: Any = self._client.post(path, body=body, cast_to=object)
            latency = time.perf_counter() - started
            choice = raw["choices"][0]
            text = (choice["message"]["content"] if request.mode == "chat" else choice["text"]) or ""
            if not isinstance(text, str):
                raise TypeError(f"the completion's text is {type(text).__name__}, not a string")
            finish = choice.get("finish_reason")
            usage = raw.get("usage") or {}
            input_tokens, output_tokens = int(usage.get("prompt_tokens") or 0), int(usage.get("completion_tokens") or 0)
        except openai.APIConnectionError as exc:  # includes APITimeoutError
            raise TransientProviderError(self._scrub(f"{type(exc).__name__}: {exc.message}")) from None
        except openai.RateLimitError as exc:
            raise TransientProviderError(self._scrub("rate limited (429)"), retry_after_s=_retry_after(exc)) from None
        except openai.APIStatusError as exc:
            if exc.status_code >= 500:
                raise TransientProviderError(self._scrub(f"server error {exc.status_code}")) from None
            raise ProviderError(self._scrub(f"HTTP {exc.status_code}: {exc.message}")) from None
        except openai.OpenAIError as exc:
            raise ProviderError(self._scrub(f"{type(exc).__name__}: {exc}")) from None
        except (AttributeError, IndexError, KeyError, TypeError, ValueError) as exc:
            # A 200 whose body is not a completion (garbage from the server): permanent, not retried.
            raise ProviderError(self._scrub(f"malformed response: {exc!r}")) from None
        text, raw = redact(text, self._secrets()), redact_json(raw, self._secrets())
        return LLMResponse(
            text=text,
            finish_reason=finish,
            input_tokens=input_tokens,
            output_tokens=output_tokens,
            latency_s=latency,
            raw=raw,
        )

    def _secrets(self) -> tuple[str, ...]:
        """The key, read back from the SDK client (kept nowhere else, so that ``vars`` of this object shows it
        not)."""
        key = str(self._client.api_key or "")
        return () if key == NO_KEY else (key,)

    def _scrub(self, message: str) -> str:
        """The error message, prefixed with this provider's name, with its key replaced wherever it appears."""
        return redact(f"{self.name}: {message}", self._secrets())


def _retry_after(exc: openai.APIStatusError) -> float | None:
    value = exc.response.headers.get("retry-after")
    if value is None:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        return None
