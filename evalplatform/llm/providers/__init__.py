"""Provider backends. Each turns an ``LLMRequest`` into an ``LLMResponse`` and maps its vendor's errors
to ``ProviderError`` / ``TransientProviderError``. Vendor SDKs are imported only inside these modules."""

from evalplatform.llm.providers.base import Provider

__all__ = ["Provider"]
