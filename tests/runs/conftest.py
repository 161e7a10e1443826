"""Fixtures of the pipeline tests: the judge server, endpoints pointing at it, the bundled sample."""

from collections.abc import Callable, Iterator
from typing import Any

import pytest
from django.core.management import call_command

from evalplatform.corpus.models import Dataset
from evalplatform.runs.models import ModelEndpoint
from tests.conftest import SAMPLE_DKD
from tests.runs.judge_server import JudgeServer


@pytest.fixture
def judge_server() -> Iterator[JudgeServer]:
    with JudgeServer() as server:
        yield server


@pytest.fixture
def endpoint_factory(judge_server: JudgeServer) -> Callable[..., ModelEndpoint]:
    def make(name: str, **fields: Any) -> ModelEndpoint:
        defaults: dict[str, Any] = {
            "provider": ModelEndpoint.Provider.OPENAI_COMPATIBLE,
            "model_id": "judge",
            "base_url": judge_server.base_url,
            "mode": ModelEndpoint.Mode.COMPLETION,
            "timeout_s": 1.0,
            "max_attempts": 3,
        }
        return ModelEndpoint.objects.create(name=name, **(defaults | fields))

    return make


@pytest.fixture
def sample_dataset(db: None) -> Dataset:
    call_command("import_dataset", str(SAMPLE_DKD), format="dkd", name="sample")
    return Dataset.objects.get(name="sample")
