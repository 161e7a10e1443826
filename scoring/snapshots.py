"""A run's computed results kept, so that reading them costs the same at 100 and at 100,000 cells.

A results function of a run (Table 2 rows with their bootstrap intervals, the correlations, the error classes,
GoldSim / CtxSim / CUS rows...) reads every score of the run and resamples them: O(run) per call, seconds for a
large run. ``@run_snapshot`` keeps its output in a RunSnapshot row, keyed by the function and its arguments, valid
while the run's progress and status are those it was computed at (a retry that forgets failed scores moves the
progress back, so the results are computed again). A running run's snapshot is served for up to
``RUNNING_MAX_AGE_S`` although units finished since: its page and API stay fast while the run goes on. The run's
last unit warms the snapshots (``scoring.receivers``), so that the first reader of a finished run waits for
nothing. Outputs are lists of dataclasses, stored as JSON and rebuilt from their type hints."""

from __future__ import annotations

import dataclasses
import functools
import types
import typing
from collections.abc import Callable
from datetime import timedelta
from typing import Any, TypeVar, cast

from django.utils import timezone

from evalplatform.runs.models import Run
from scoring.models import RunSnapshot

# Bump when a results function's output changes for the same scores: every kept snapshot is then recomputed.
SNAPSHOT_VERSION = 1
# How stale a running run's results may be served (seconds).
RUNNING_MAX_AGE_S = 30
F = TypeVar("F", bound=Callable[..., Any])
_registry: dict[str, Callable[..., Any]] = {}


def run_snapshot(function: F) -> F:
    """Keep ``function(run, *args, **kwargs)``'s output (a list of dataclasses) per run, progress and arguments."""
    name = f"{function.__module__}.{function.__qualname__}"
    item_type = typing.get_args(typing.get_type_hints(function)["return"])[0]

    @functools.wraps(function)
    def cached(run: Run, *args: Any, **kwargs: Any) -> Any:
        key = f"{name}{args!r}{sorted(kwargs.items())!r}"[:200]
        kept = RunSnapshot.objects.filter(run_id=run.pk, key=key, version=SNAPSHOT_VERSION).first()
        if kept is not None and _fresh(kept, run):
            return [_rebuild(item_type, item) for item in kept.payload]
        output = function(run, *args, **kwargs)
        payload = [_plain(item) for item in output]
        RunSnapshot.objects.update_or_create(
            run_id=run.pk,
            key=key,
            defaults={
                "version": SNAPSHOT_VERSION,
                "progress_done": run.progress_done,
                "status": run.status,
                "payload": payload,
                "computed_at": timezone.now(),
            },
        )
        return output

    _registry[name] = cached
    return cast(F, cached)


def _fresh(kept: RunSnapshot, run: Run) -> bool:
    if (kept.progress_done, kept.status) == (run.progress_done, run.status):
        return True
    young = timezone.now() - kept.computed_at < timedelta(seconds=RUNNING_MAX_AGE_S)
    return run.status == Run.Status.RUNNING and kept.status == Run.Status.RUNNING and young


def warm(run: Run) -> int:
    """Compute and keep every registered results function of a run with its default arguments."""
    for cached in _registry.values():
        cached(run)
    return len(_registry)


def _plain(value: Any) -> Any:
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: _plain(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    return value


def _rebuild(hint: Any, value: Any) -> Any:
    """The JSON ``value`` as the type ``hint`` describes it (dataclasses, lists, dicts, tuples, optionals)."""
    if value is None:
        return None
    origin = typing.get_origin(hint)
    if origin in (typing.Union, types.UnionType):
        options = [a for a in typing.get_args(hint) if a is not type(None)]
        return _rebuild(options[0], value) if len(options) == 1 else value
    if isinstance(hint, type) and dataclasses.is_dataclass(hint):
        hints = typing.get_type_hints(hint)
        fields = {f.name: _rebuild(hints[f.name], value[f.name]) for f in dataclasses.fields(hint)}
        return cast(Any, hint)(**fields)
    if origin is list:
        (item,) = typing.get_args(hint)
        return [_rebuild(item, v) for v in value]
    if origin is tuple:
        args = typing.get_args(hint)
        if len(args) == 2 and args[1] is Ellipsis:
            return tuple(_rebuild(args[0], v) for v in value)
        return tuple(_rebuild(a, v) for a, v in zip(args, value, strict=True))
    if origin is dict:
        _, item = typing.get_args(hint)
        return {k: _rebuild(item, v) for k, v in value.items()}
    return value
