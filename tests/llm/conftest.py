from __future__ import annotations

import pytest


def pytest_configure(config: pytest.Config) -> None:
    # The lead registers this marker project-wide as well; registering it here keeps tests/llm warning-free.
    config.addinivalue_line("markers", "llm: slow tests that start a real llama.cpp server")


class RecordingSleep:
    """An injected ``sleep`` that records the waits instead of sleeping."""

    def __init__(self) -> None:
        self.waits: list[float] = []

    def __call__(self, seconds: float) -> None:
        self.waits.append(seconds)


@pytest.fixture
def no_sleep() -> RecordingSleep:
    return RecordingSleep()
