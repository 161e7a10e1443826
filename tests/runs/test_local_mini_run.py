"""The real packaged gemma-3-270m behind the real llama.cpp server, reached through the openai SDK: a
two-context mini run where every metric is present or explicitly unparseable, never missing."""

from collections.abc import Callable
from typing import Any

import pytest

from evalplatform.corpus.models import Dataset
from evalplatform.runs.launch import run_launch
from evalplatform.runs.models import Generation, Run
from scoring.cdke.results import result_rows
from scoring.models import GenerationScore

pytestmark = [pytest.mark.django_db, pytest.mark.llm]


def test_two_context_mini_run_on_the_local_model_scores_or_flags_every_metric(
    sample_dataset: Dataset, django_capture_on_commit_callbacks: Callable[..., Any]
) -> None:
    spec = {"models": ["local"], "evaluators": ["local"], "per_context": 1, "limit": 2, "conditions": ["divergent"]}
    with django_capture_on_commit_callbacks(execute=True):
        run = run_launch(dataset=sample_dataset, spec=spec)
    run.refresh_from_db()
    assert run.status == Run.Status.DONE, run.status_reason
    generations = list(Generation.objects.filter(run=run))
    assert {g.question.context.key for g in generations} == {"Agatha_Christie", "Fahrenheit_451"}
    assert all(g.status == "done" and g.text and g.tokens_out > 0 for g in generations)
    for g in generations:
        metrics = {s.metric: s for s in GenerationScore.objects.filter(generation=g)}
        assert set(metrics) == {"ass", "fc", "ac", "acc", "cm", "lav"}
        for score in metrics.values():
            assert (score.status == "ok") == (score.value is not None)
            assert score.status in ("ok", "unparseable", "failed")
            if score.metric in ("acc", "cm", "lav") and score.status == "ok":
                assert score.raw_output.strip().startswith("{")
    (row,) = result_rows(run)
    assert row.n == 2
    assert row.metrics["ass"].n == 2
