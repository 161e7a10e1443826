"""Finding 18: no cap on run size. A 144,000-cell estimate took 12.8 s and a launch would have written as many
rows and tasks. A configurable cap (EVALPLATFORM_MAX_RUN_CELLS) now refuses larger runs, saying how to shrink or
raise it, before anything is written."""

from collections.abc import Callable
from typing import Any

import pytest

from evalplatform.corpus.models import Dataset
from evalplatform.runs.launch import run_launch
from evalplatform.runs.models import ModelEndpoint, Run
from evalplatform.runs.services import run_estimate
from evalplatform.runs.spec import RunSpec, SpecError

pytestmark = pytest.mark.django_db
EndpointFactory = Callable[..., ModelEndpoint]


def test_a_run_over_the_cell_cap_is_refused_with_a_way_out(
    sample_dataset: Dataset, endpoint_factory: EndpointFactory, settings: Any
) -> None:
    endpoint_factory("cand")
    settings.MAX_RUN_CELLS = 10
    spec = {"models": ["cand"], "temperatures": [0.0, 0.5, 1.0], "conditions": ["divergent", "none"]}
    # 16 questions x 3 temperatures x 2 conditions = 96 cells
    with pytest.raises(SpecError, match=r"this run has 96 cells .* more than the 10 this platform allows"):
        run_launch(dataset=sample_dataset, spec=spec, enqueue=False)
    with pytest.raises(SpecError, match="EVALPLATFORM_MAX_RUN_CELLS"):
        run_estimate(dataset=sample_dataset, spec=RunSpec.from_dict(spec))
    assert not Run.objects.exists()
    run = run_launch(dataset=sample_dataset, spec=spec | {"limit": 1}, enqueue=False)  # 6 cells
    assert run.generations.count() == 6
