from __future__ import annotations

import pytest

from evalplatform.llm.errors import BudgetExceeded
from evalplatform.llm.pricing import Budget, cost_usd, estimate_cost, rough_token_count
from evalplatform.llm.types import LLMRequest


def test_cost_is_tokens_times_price_per_million() -> None:
    # 1000 in at $10/M = 0.01; 500 out at $30/M = 0.015
    assert cost_usd(1000, 500, 10.0, 30.0) == pytest.approx(0.025)


def test_rough_token_count_is_characters_over_four_rounded_up() -> None:
    assert rough_token_count("") == 0
    assert rough_token_count("abcd") == 1
    assert rough_token_count("abcde") == 2


def test_estimate_uses_max_tokens_or_the_expected_output() -> None:
    requests = [LLMRequest(model="m", prompt="x" * 40, max_tokens=10), LLMRequest(model="m", prompt="y" * 8)]
    # input 10 + 2 = 12 tokens; output max_tokens 10 + 256
    estimate = estimate_cost(requests, price_in=1_000_000, price_out=2_000_000)
    assert (estimate.n_requests, estimate.input_tokens, estimate.output_tokens) == (2, 12, 266)
    assert estimate.cost_usd == pytest.approx(12 * 1 + 266 * 2)
    fixed = estimate_cost(requests, price_in=1_000_000, price_out=2_000_000, expected_output_tokens=5)
    assert fixed.output_tokens == 10
    assert fixed.cost_usd == pytest.approx(12 + 20)


def test_budget_raises_before_a_call_that_could_pass_the_limit() -> None:
    budget = Budget(limit_usd=1.0)
    reserved = budget.reserve(0.6)
    budget.settle(reserved, 0.5)
    assert budget.spent_usd == pytest.approx(0.5)
    budget.settle(budget.reserve(0.5), 0.4)  # 0.5 + 0.5 = 1.0 is not past the limit
    with pytest.raises(BudgetExceeded) as info:
        budget.reserve(0.2)  # 0.9 + 0.2 > 1.0
    assert info.value.limit_usd == 1.0
    assert info.value.spent_usd == pytest.approx(0.9)
    assert "budget of $1.0000 reached" in str(info.value)


def test_reservations_in_flight_count_against_the_limit() -> None:
    budget = Budget(limit_usd=1.0)
    first = budget.reserve(0.7)
    with pytest.raises(BudgetExceeded):
        budget.reserve(0.7)
    budget.release(first)
    budget.reserve(0.7)


def test_budget_without_limit_never_raises() -> None:
    budget = Budget()
    budget.settle(budget.reserve(1e9), 1e9)
    assert budget.spent_usd == 1e9
