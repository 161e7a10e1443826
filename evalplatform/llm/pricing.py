"""Cost per call, a pre-flight estimate for a run, and a hard budget.

Prices are in USD per million tokens (the unit providers publish). The pre-flight estimate counts input
tokens roughly as ``ceil(characters / 4)``, the usual rule of thumb for English text with BPE
tokenisers; it is an estimate to decide whether to launch, not an invoice. Expected output tokens
default to each request's ``max_tokens`` (an upper bound).
"""

from __future__ import annotations

import math
import threading
from collections.abc import Iterable
from dataclasses import dataclass

from evalplatform.llm.errors import BudgetExceeded
from evalplatform.llm.types import LLMRequest

CHARS_PER_TOKEN = 4  # rough English average for BPE tokenisers
PER_MILLION = 1_000_000


def cost_usd(input_tokens: int, output_tokens: int, price_in: float, price_out: float) -> float:
    """Cost of one call; ``price_in`` / ``price_out`` are USD per million tokens."""
    return (input_tokens * price_in + output_tokens * price_out) / PER_MILLION


def rough_token_count(text: str) -> int:
    return math.ceil(len(text) / CHARS_PER_TOKEN)


@dataclass(frozen=True)
class CostEstimate:
    n_requests: int
    input_tokens: int
    output_tokens: int
    cost_usd: float


def estimate_cost(
    requests: Iterable[LLMRequest],
    price_in: float,
    price_out: float,
    expected_output_tokens: int | None = None,
) -> CostEstimate:
    """Pre-flight estimate for ``requests``; output tokens per request are ``expected_output_tokens``
    when given, else the request's ``max_tokens``."""
    n = tokens_in = tokens_out = 0
    for request in requests:
        n += 1
        tokens_in += rough_token_count(request.text_for_counting())
        tokens_out += request.max_tokens if expected_output_tokens is None else expected_output_tokens
    return CostEstimate(n, tokens_in, tokens_out, cost_usd(tokens_in, tokens_out, price_in, price_out))


class Budget:
    """A thread-safe spend accumulator with an optional hard limit in USD.

    Before a call the client ``reserve``s the call's worst-case cost (rough input tokens + max_tokens);
    if spent + reserved + that would pass the limit, ``BudgetExceeded`` is raised and nothing is sent.
    After the call ``settle`` replaces the reservation with the actual cost.
    """

    def __init__(self, limit_usd: float | None = None) -> None:
        if limit_usd is not None and limit_usd < 0:
            raise ValueError("limit_usd must be >= 0")
        self.limit_usd = limit_usd
        self._spent = 0.0
        self._reserved = 0.0
        self._lock = threading.Lock()

    @property
    def spent_usd(self) -> float:
        with self._lock:
            return self._spent

    def reserve(self, amount_usd: float) -> float:
        with self._lock:
            if self.limit_usd is not None and self._spent + self._reserved + amount_usd > self.limit_usd:
                raise BudgetExceeded(
                    f"budget of ${self.limit_usd:.4f} reached: ${self._spent:.4f} spent, "
                    f"${self._reserved:.4f} in flight, the next call may cost up to ${amount_usd:.4f}",
                    limit_usd=self.limit_usd,
                    spent_usd=self._spent,
                    needed_usd=amount_usd,
                )
            self._reserved += amount_usd
            return amount_usd

    def settle(self, reserved_usd: float, actual_usd: float) -> None:
        with self._lock:
            self._reserved = max(0.0, self._reserved - reserved_usd)
            self._spent += actual_usd

    def release(self, reserved_usd: float) -> None:
        """Give back a reservation whose call failed (nothing billed)."""
        self.settle(reserved_usd, 0.0)
