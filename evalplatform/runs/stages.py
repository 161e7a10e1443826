"""The stages of a run, and the registry the methods fill at start-up.

A run's cells (its Generation rows) are planned by the runs app; everything done with them is a *stage*
registered by a method's app in its ``AppConfig.ready()``: CDK-E registers ``answer`` (ask each cell's model),
``similarity`` (ASS) and ``judge`` (every evaluator's metrics); S3KG registers ``graphs`` (GoldSim, CtxSim, CUS,
then TAU). The runs app reaches the stages through this registry only, so it never imports the methods above
it; a stage calls down into the runs app (progress, stop) as any higher layer may.

Every stage says whether it applies to a spec, how many units of work it adds per cell (the run's progress
counts units), what it would cost, what it records in the run's manifest, what is still to do in a run
(``schedule``, on launch and resume), what to do once a cell is answered (``after_answer``), how far a run is
(``progress``) and how to forget its failed units so that they are tried again (``retry_failed``)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from evalplatform.corpus.models import Question
from evalplatform.llm.pricing import CostEstimate
from evalplatform.runs.models import Generation, Run
from evalplatform.runs.spec import RunSpec


class Stage:
    """One step a run's cells go through. Subclasses override what they need; the defaults do nothing."""

    name = "stage"
    # Stages run in this order (the answers first: every other stage works on answered cells).
    order = 100

    def applies(self, spec: RunSpec) -> bool:
        return True

    def validate(self, spec: RunSpec) -> None:
        """Raise ``SpecError`` for options of this stage that cannot run."""

    def units_per_cell(self, spec: RunSpec) -> int:
        """Units of work this stage adds to each cell of the run's progress (0: not counted)."""
        return 0

    def manifest(self, spec: RunSpec) -> dict[str, Any]:
        """What this stage adds to the run's manifest: versions of its prompts, metrics, models."""
        return {}

    def estimate(self, *, questions: Sequence[Question], spec: RunSpec) -> CostEstimate:
        """Pre-flight cost of this stage's model calls on these questions."""
        return CostEstimate(0, 0, 0, 0.0)

    def schedule(self, run: Run) -> int:
        """Enqueue what is left of this stage in the run; returns how many tasks were sent."""
        return 0

    def requeue_stale(self, run: Run, *, sent_before: datetime) -> int:
        """Forget that work sent before ``sent_before`` is on its way (the watchdog sends it again)."""
        return 0

    def after_answer(self, generation: Generation, spec: RunSpec, *, answered_here: bool = False) -> None:
        """A cell was just answered: start this stage's work on it. ``answered_here``: by the task calling this
        (then nothing of the cell's later stages can be stored yet)."""

    def progress(self, run: Run, spec: RunSpec, *, failed_cells: int) -> tuple[int, int]:
        """(finished, failed) units of this stage; a cell whose answer failed fails its units here too."""
        return 0, 0

    def retry_failed(self, run: Run) -> int:
        """Forget this stage's failed units so that the next schedule tries them again; returns how many."""
        return 0


_STAGES: dict[str, Stage] = {}


def stage_register(stage: Stage) -> None:
    """Called by a method's AppConfig.ready(); registering a name twice keeps the last (a reloaded app)."""
    _STAGES[stage.name] = stage


def stages_for(spec: RunSpec) -> list[Stage]:
    """The registered stages that apply to a run of this spec, in order."""
    return [s for s in sorted(_STAGES.values(), key=lambda s: (s.order, s.name)) if s.applies(spec)]


def stage_names() -> list[str]:
    return sorted(_STAGES)
