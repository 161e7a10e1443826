"""Template filters every page uses (registered as a builtin in settings.TEMPLATES, so no template loads them):
durations, shares with their counts, and the glossary's explanation of a metric."""

from __future__ import annotations

import math

from django import template

from evalplatform.glossary import GLOSSARY

register = template.Library()


@register.filter
def duration(seconds: float | None) -> str:
    """12 s, 3 min 20 s, 2 h 5 min; '–' for nothing."""
    if seconds is None or not math.isfinite(seconds):
        return "–"
    total = round(seconds)
    if total < 60:
        return f"{max(total, 0)} s" if seconds >= 0.5 or seconds == 0 else "< 1 s"
    minutes, secs = divmod(total, 60)
    if minutes < 60:
        return f"{minutes} min {secs} s" if secs else f"{minutes} min"
    hours, minutes = divmod(minutes, 60)
    return f"{hours} h {minutes} min" if minutes else f"{hours} h"


@register.filter
def share_of(count: int | None, total: int | None) -> str:
    """'3 of 12 (25 %)': a share always with its counts."""
    if not total:
        return f"{count or 0} of 0"
    return f"{count or 0} of {total} ({100.0 * (count or 0) / total:.0f} %)"


@register.filter
def explain(term: str) -> str:
    """The glossary's one-line explanation of a metric or a column, for a hover title."""
    entry = GLOSSARY.get(str(term).lower())
    return entry[1] if entry else ""


@register.filter
def make_list_words(text: str) -> list[str]:
    """'a b c' -> ['a', 'b', 'c'] (a list written in a template)."""
    return str(text).split()


@register.filter
def index_of(items: object, index: int) -> object:
    """``items[index]``'s primary key, for a URL (the n-th run of a comparison)."""
    try:
        item = list(items)[int(index)]  # type: ignore[call-overload]
    except (TypeError, ValueError, IndexError):
        return ""
    return getattr(item, "pk", item)


@register.filter
def get_item(mapping: object, key: str) -> object:
    """``mapping[key]`` in a template (a dict's entry by a name held in a variable)."""
    return mapping.get(key) if isinstance(mapping, dict) else None
