"""The one interface every backend implements."""

from __future__ import annotations

from typing import Protocol, runtime_checkable

from evalplatform.llm.types import LLMRequest, LLMResponse


@runtime_checkable
class Provider(Protocol):
    """A backend. ``name`` goes into the cache key, so two providers that may answer differently must
    not share a name. ``complete`` raises ``ProviderError`` or ``TransientProviderError`` on failure and
    never retries by itself (the retry layer owns retries)."""

    @property
    def name(self) -> str: ...

    def complete(self, request: LLMRequest) -> LLMResponse: ...
