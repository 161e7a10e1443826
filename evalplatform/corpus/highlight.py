"""Marking facts inside a text for a page: the alterations of a divergent context, the originals in the real text."""

from collections.abc import Iterable

from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe


def highlight(text: str, phrases: Iterable[str], css_class: str) -> SafeString:
    """``text`` HTML-escaped, with every occurrence of each phrase wrapped in ``<mark class=css_class>``;
    the longest phrase wins where two overlap, and nothing unescaped reaches the page."""
    spans: list[tuple[int, int]] = []
    for phrase in sorted({p for p in phrases if p.strip()}, key=len, reverse=True):
        start = text.find(phrase)
        while start != -1:
            end = start + len(phrase)
            if all(end <= s or start >= e for s, e in spans):
                spans.append((start, end))
            start = text.find(phrase, end)
    out: list[str] = []
    position = 0
    for start, end in sorted(spans):
        out.append(escape(text[position:start]))
        out.append(f'<mark class="{escape(css_class)}">{escape(text[start:end])}</mark>')
        position = end
    out.append(escape(text[position:]))
    return mark_safe("".join(out))  # noqa: S308 (every piece of text above went through escape())
