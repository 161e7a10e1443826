from __future__ import annotations

import pytest

from evalplatform.llm.cache import InMemoryCache
from evalplatform.llm.client import LLMClient
from evalplatform.llm.errors import BudgetExceeded, ProviderError, TransientProviderError
from evalplatform.llm.pricing import Budget
from evalplatform.llm.providers.openai_provider import OpenAIProvider
from evalplatform.llm.ratelimit import EndpointLimiter
from evalplatform.llm.retry import RetryPolicy
from evalplatform.llm.types import LLMRequest
from tests.llm.conftest import RecordingSleep
from tests.llm.fake_openai_server import FakeOpenAIServer, delay, ok, status


def _client(server: FakeOpenAIServer, sleep: RecordingSleep, **kwargs: object) -> LLMClient:
    provider = OpenAIProvider(base_url=server.base_url, timeout=kwargs.pop("timeout", 5.0))  # type: ignore[arg-type]
    return LLMClient(provider, endpoint_name="fake", sleep=sleep, **kwargs)  # type: ignore[arg-type]


REQUEST = LLMRequest(model="m", prompt="one two three four", max_tokens=8, seed=3)


def test_cache_miss_calls_the_server_then_hit_is_free_and_marked_cached(
    fake_server: FakeOpenAIServer, no_sleep: RecordingSleep
) -> None:
    fake_server.script(ok("alpha beta"))
    client = _client(fake_server, no_sleep, cache=InMemoryCache(), price_in=1_000_000, price_out=2_000_000)
    first = client.call(REQUEST, prompt_version="v1")
    # fake server counts words: 4 prompt tokens, 2 completion tokens -> 4 * 1 + 2 * 2 = 8 USD
    assert (first.text, first.cached, first.cost_usd) == ("alpha beta", False, 8.0)
    second = client.call(REQUEST, prompt_version="v1")
    assert (second.text, second.cached, second.cost_usd) == ("alpha beta", True, 0.0)
    assert len(fake_server.requests) == 1
    usage = client.usage
    assert (usage.calls, usage.cache_hits, usage.input_tokens, usage.output_tokens) == (1, 1, 4, 2)
    assert usage.cost_usd == 8.0


def test_bypassing_the_cache_calls_the_server_again(fake_server: FakeOpenAIServer, no_sleep: RecordingSleep) -> None:
    client = _client(fake_server, no_sleep, cache=InMemoryCache())
    client.call(REQUEST, prompt_version="v1")
    fresh = client.call(REQUEST, prompt_version="v1", use_cache=False)
    assert fresh.cached is False
    assert len(fake_server.requests) == 2


def test_another_seed_or_prompt_version_misses_the_cache(
    fake_server: FakeOpenAIServer, no_sleep: RecordingSleep
) -> None:
    client = _client(fake_server, no_sleep, cache=InMemoryCache())
    client.call(REQUEST, prompt_version="v1")
    client.call(LLMRequest(model="m", prompt="one two three four", max_tokens=8, seed=4), prompt_version="v1")
    client.call(REQUEST, prompt_version="v2")
    assert len(fake_server.requests) == 3
    assert client.usage.cache_hits == 0


def test_429_then_success_is_retried_with_backoff(fake_server: FakeOpenAIServer, no_sleep: RecordingSleep) -> None:
    fake_server.script(status(429), status(429), ok("fine"))
    client = _client(fake_server, no_sleep, retry_policy=RetryPolicy(max_attempts=4, base_s=0.1, cap_s=1.0))
    assert client.call(REQUEST, prompt_version="v1").text == "fine"
    assert len(fake_server.requests) == 3  # the SDK made no retries of its own
    assert len(no_sleep.waits) == 2
    assert client.usage.attempts == 3 and client.usage.calls == 1


def test_persistent_500_raises_transient_after_max_attempts(
    fake_server: FakeOpenAIServer, no_sleep: RecordingSleep
) -> None:
    fake_server.script(*[status(500)] * 5)
    client = _client(fake_server, no_sleep, retry_policy=RetryPolicy(max_attempts=3))
    with pytest.raises(TransientProviderError, match="500"):
        client.call(REQUEST, prompt_version="v1")
    assert len(fake_server.requests) == 3


def test_timeout_is_transient_and_retried(fake_server: FakeOpenAIServer, no_sleep: RecordingSleep) -> None:
    fake_server.script(delay(1.5), ok("on time"))
    client = _client(fake_server, no_sleep, timeout=0.3, retry_policy=RetryPolicy(max_attempts=2))
    assert client.call(REQUEST, prompt_version="v1").text == "on time"
    assert len(no_sleep.waits) == 1


def test_400_is_permanent_and_not_retried(fake_server: FakeOpenAIServer, no_sleep: RecordingSleep) -> None:
    fake_server.script(status(400))
    client = _client(fake_server, no_sleep, retry_policy=RetryPolicy(max_attempts=5))
    with pytest.raises(ProviderError):
        client.call(REQUEST, prompt_version="v1")
    assert len(fake_server.requests) == 1


def test_budget_stops_before_sending_and_says_why(fake_server: FakeOpenAIServer, no_sleep: RecordingSleep) -> None:
    # worst case of REQUEST: ceil(18 / 4) = 5 input tokens, 8 output tokens -> 5 * 1 + 8 * 1 = 13 USD
    budget = Budget(limit_usd=20.0)
    client = _client(fake_server, no_sleep, price_in=1_000_000, price_out=1_000_000, budget=budget)
    client.call(REQUEST, prompt_version="v1")  # actual: 4 + 1 ("ok") = 5 USD
    assert budget.spent_usd == 5.0
    client.call(REQUEST, prompt_version="v2")  # 5 + 13 <= 20 -> allowed, spends 5 more
    with pytest.raises(BudgetExceeded, match="budget of \\$20"):
        client.call(REQUEST, prompt_version="v3")  # 10 + 13 > 20
    assert len(fake_server.requests) == 2
    assert budget.spent_usd == 10.0


def test_cache_hits_do_not_touch_the_budget(fake_server: FakeOpenAIServer, no_sleep: RecordingSleep) -> None:
    budget = Budget(limit_usd=14.0)
    client = _client(
        fake_server, no_sleep, cache=InMemoryCache(), price_in=1_000_000, price_out=1_000_000, budget=budget
    )
    client.call(REQUEST, prompt_version="v1")  # reserves 13, spends 5
    for _ in range(3):
        assert client.call(REQUEST, prompt_version="v1").cached
    assert budget.spent_usd == 5.0


def test_client_goes_through_the_endpoint_limiter(fake_server: FakeOpenAIServer, no_sleep: RecordingSleep) -> None:
    waits: list[float] = []
    # a rate of 2 calls/s with a frozen clock: the 2nd and 3rd call each wait 0.5 s, then 1.0 s
    limiter = EndpointLimiter("fake", concurrency=1, rate_per_s=2.0, clock=lambda: 0.0, sleep=waits.append)
    client = _client(fake_server, no_sleep, limiter=limiter)
    for version in ("v1", "v2", "v3"):
        client.call(REQUEST, prompt_version=version)
    assert waits == [0.5, 1.0]
    assert limiter._semaphore is not None and limiter._semaphore.acquire(blocking=False)
