"""Fixtures of the pipeline tests: the judge server, endpoints pointing at it, the bundled sample, and a launch
that runs its tasks inline."""

from collections.abc import Callable, Iterator
from typing import Any

import pytest
from django.core.management import call_command

from evalplatform.corpus.models import Dataset
from evalplatform.runs.launch import run_launch
from evalplatform.runs.models import ModelEndpoint, Run
from tests.conftest import SAMPLE_DKD
from tests.runs.judge_server import JudgeServer

# One condition and one temperature: a cell per question and model.
ONE = {"conditions": ["divergent"], "temperatures": [0.2]}


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


@pytest.fixture
def launch(django_capture_on_commit_callbacks: Callable[..., Any]) -> Callable[..., Run]:
    """Launches a run on the sample's first questions and runs its tasks inline (on commit)."""

    def go(dataset: Dataset, **spec: object) -> Run:
        with django_capture_on_commit_callbacks(execute=True):
            run = run_launch(dataset=dataset, spec=ONE | spec)
        run.refresh_from_db()
        return run

    return go
