"""Errors raised by the LLM layer. Only ``TransientProviderError`` is ever retried."""

from __future__ import annotations


class LLMError(Exception):
    """Base of every error this package raises."""


class ProviderError(LLMError):
    """A permanent failure: bad request, authentication, unknown model. Retrying will not help."""


class TransientProviderError(LLMError):
    """A failure worth retrying: timeout, connection error, 429, 5xx, throttling."""

    def __init__(self, message: str, *, retry_after_s: float | None = None) -> None:
        super().__init__(message)
        self.retry_after_s = retry_after_s


class BudgetExceeded(LLMError):
    """The next call would pass the run's hard budget; the run stops cleanly and says why."""

    def __init__(self, message: str, *, limit_usd: float, spent_usd: float, needed_usd: float) -> None:
        super().__init__(message)
        self.limit_usd = limit_usd
        self.spent_usd = spent_usd
        self.needed_usd = needed_usd


class UnparseableOutput(LLMError):
    """A judge's output did not match its format. ``raw`` keeps the text for the record."""

    def __init__(self, message: str, *, raw: str) -> None:
        super().__init__(message)
        self.raw = raw
