"""S3KG's stage of a run, registered with the runs app at start-up (``ScoringConfig.ready``): ``graphs`` builds
each answered cell's answer, gold and context graphs and scores GoldSim, CtxSim and CUS for every variant of the
run's ``kg`` options (one unit per cell), then TAU on the lowest items once the last graph is in."""

from __future__ import annotations

from typing import Any

from django.db.models import Count

from evalplatform.runs.models import Generation, Run
from evalplatform.runs.spec import RunSpec
from evalplatform.runs.stages import Stage
from scoring import selectors
from scoring.kg_spec import KGSpec
from scoring.models import GraphScore
from scoring.s3kg import VARIANTS
from scoring.services.graph_scores import GRAPH_STAGE
from scoring.tasks import generation_graph_task


class GraphStage(Stage):
    name = GRAPH_STAGE
    order = 40

    def applies(self, spec: RunSpec) -> bool:
        return spec.kg is not None

    def validate(self, spec: RunSpec) -> None:
        KGSpec.from_dict(spec.kg or {})

    def units_per_cell(self, spec: RunSpec) -> int:
        return 1

    def manifest(self, spec: RunSpec) -> dict[str, Any]:
        kg = KGSpec.from_dict(spec.kg or {})
        return {"kg": kg.to_dict(), "metrics": {v: VARIANTS[v].version for v in kg.variants}}

    def schedule(self, run: Run) -> int:
        todo = list(selectors.generations_to_graph(run).values_list("pk", flat=True))
        for generation_id in todo:
            generation_graph_task.delay(generation_id)
        return len(todo)

    def after_answer(self, generation: Generation, spec: RunSpec, *, answered_here: bool = False) -> None:
        generation_graph_task.delay(generation.pk)

    def progress(self, run: Run, spec: RunSpec, *, failed_cells: int) -> tuple[int, int]:
        graphed = (
            GraphScore.objects.filter(generation__run=run)
            .order_by()
            .aggregate(n=Count("generation_id", distinct=True))["n"]
        )
        return graphed + failed_cells, failed_cells


GRAPH = GraphStage()
