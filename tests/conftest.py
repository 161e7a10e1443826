"""Fixtures shared by the whole suite."""

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.llm.fake_openai_server import FakeOpenAIServer

REPO = Path(__file__).resolve().parent.parent
SHARED_DATA = REPO.parent / "shared" / "data"
SAMPLE_DKD = REPO / "data" / "samples" / "dkd_sample.json"


@pytest.fixture
def shared_data() -> Path:
    """The public evaluation data beside the repository (../shared/data); tests skip without it."""
    if not SHARED_DATA.is_dir():
        pytest.skip(f"public data not found at {SHARED_DATA}")
    return SHARED_DATA


@pytest.fixture
def fake_server() -> Iterator[FakeOpenAIServer]:
    """A real OpenAI-compatible HTTP server on 127.0.0.1 that answers what the test queues (tests/llm)."""
    with FakeOpenAIServer() as server:
        yield server
