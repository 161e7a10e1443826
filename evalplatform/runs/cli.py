"""What the run commands share: running inline with ``--sync``, and following a launched run to its end."""

from __future__ import annotations

import argparse
import math
import sys
import time
from collections.abc import Callable
from typing import TextIO

from django.core.management.base import CommandError

from evalplatform.celery import app
from evalplatform.corpus.models import Dataset
from evalplatform.runs.models import Run
from evalplatform.runs.spec import MAX_WHOLE

POLL_S = 1.0


def whole_number(low: int = 1, high: int = MAX_WHOLE) -> Callable[[str], int]:
    """An argparse type: a whole number from ``low`` to ``high`` (a limit of 2**63 overflowed the SQL LIMIT)."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
        if not low <= value <= high:
            raise argparse.ArgumentTypeError(f"must be a whole number from {low} to {high}, not {text[:30]}")
        return value

    return parse


def finite_number(low: float = 0.0, high: float = math.inf) -> Callable[[str], float]:
    """An argparse type: a finite number from ``low`` to ``high`` (NaN and the infinities are refused)."""

    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
        if not math.isfinite(value) or not low <= value <= high:
            raise argparse.ArgumentTypeError(f"must be a finite number from {low:g} to {high:g}, not {text[:30]}")
        return value

    return parse


def dataset_named(name: str | None) -> Dataset:
    """The dataset of this name, or the command's one-line error."""
    dataset = Dataset.objects.filter(name=name).first() if name else None
    if dataset is None:
        raise CommandError(f"no dataset named '{name}'")
    return dataset


def run_inline() -> None:
    """Tasks run inline in this process (``--sync``), not on the workers."""
    app.conf.task_always_eager = True


def progress_bar(run: Run, width: int = 40) -> str:
    filled = int(width * run.progress_done / run.progress_total) if run.progress_total else 0
    return f"\r[{'#' * filled}{'.' * (width - filled)}] {run.progress_done}/{run.progress_total} {run.status}"


def follow_run(run: Run, *, timeout_s: float, out: TextIO = sys.stdout) -> Run:
    """Show the run's progress bar until it is no longer queued or running (or ``timeout_s`` has passed), then
    say how it ended."""
    deadline = time.monotonic() + timeout_s
    while True:
        run.refresh_from_db()
        out.write(progress_bar(run))
        out.flush()
        if not run.is_active or time.monotonic() > deadline:
            break
        time.sleep(POLL_S)
    out.write("\n")
    out.write(f"run {run.pk} {run.status}" + (f": {run.status_reason}" if run.status_reason else "") + "\n")
    return run
