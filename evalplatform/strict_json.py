"""JSON as the platform takes it from outside (imported files, API bodies, the TAU page's label): standard JSON
only, so no NaN or Infinity and no number that overflows to infinity (1e400); nested at most ``MAX_DEPTH`` deep
(Python's parser raises RecursionError, not a ValueError, on a deep enough document); and no NUL character in any
string or key (PostgreSQL stores none, in text or in jsonb). Every refusal is a ``JSONRefused``, a ValueError
whose message names where (``questions[2].metadata.x``) when it can.

Plain Python: the settings' DRF parser, the importers and the pages use it."""

import json
import math
from collections.abc import Callable
from typing import Any

# 64 levels: the deepest document the platform's own formats need is 6 (a DKD file's alterations); the rest
# is room for extra fields kept as they are. Python's own parser gives up near 1000 with a RecursionError.
MAX_DEPTH = 64


class JSONRefused(ValueError):
    """JSON the platform does not take; the message says why, and where."""


def _no_constant(name: str) -> Any:
    raise JSONRefused(f"{name} is not a number (JSON has no NaN or Infinity)")


def _finite_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise JSONRefused(f"the number {text[:30]} is out of range")
    return value


def loads(
    text: str | bytes,
    *,
    max_depth: int = MAX_DEPTH,
    object_pairs_hook: Callable[[list[tuple[str, Any]]], Any] | None = None,
) -> Any:
    """``json.loads`` with the platform's refusals (``JSONRefused``; a syntax error stays a JSONDecodeError)."""
    try:
        value = json.loads(
            text, parse_constant=_no_constant, parse_float=_finite_float, object_pairs_hook=object_pairs_hook
        )
    except RecursionError:
        raise JSONRefused(f"nested deeper than {max_depth} levels") from None
    check(value, max_depth=max_depth)
    return value


def check(value: Any, *, max_depth: int = MAX_DEPTH) -> None:
    """Refuse a decoded value nested deeper than ``max_depth``, holding a NUL character in a string or key, or
    a non-finite float. Iterative: a value too deep for recursion is refused, not crashed on."""
    stack: list[tuple[Any, str, int]] = [(value, "", 0)]
    while stack:
        item, where, depth = stack.pop()
        if depth > max_depth:
            raise JSONRefused(f"nested deeper than {max_depth} levels{_at(where)}")
        if isinstance(item, str):
            if "\x00" in item:
                raise JSONRefused(f"holds a NUL character{_at(where)}")
        elif isinstance(item, float):
            if not math.isfinite(item):
                raise JSONRefused(f"holds {item!r}, not a finite number{_at(where)}")
        elif isinstance(item, dict):
            for key, child in item.items():
                if isinstance(key, str) and "\x00" in key:
                    raise JSONRefused(f"holds a NUL character in a key{_at(where)}")
                stack.append((child, f"{where}.{key}" if where else str(key), depth + 1))
        elif isinstance(item, list | tuple):
            stack.extend((child, f"{where}[{index}]", depth + 1) for index, child in enumerate(item))


def _at(where: str) -> str:
    return f" at {where}" if where else ""


def finite(value: Any) -> Any:
    """``value`` with every non-finite float (NaN, an infinity) replaced by None: what standard JSON can say."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {key: finite(child) for key, child in value.items()}
    if isinstance(value, list | tuple):
        return [finite(child) for child in value]
    return value


def dumps(value: Any, **options: Any) -> str:
    """Standard JSON: a NaN or an infinity that reached storage another way is written as null, never as the
    ``NaN`` that Python's json writes and no other JSON reader takes."""
    return json.dumps(finite(value), allow_nan=False, **options)
