"""Marking facts inside a text for a page: the alterations of a divergent context, the originals in the real text;
``mark_spans`` is the one renderer (the annotation pages mark triplet terms with it too)."""

from collections.abc import Iterable, Iterator

from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe


def mark_spans(text: str, candidates: Iterable[tuple[int, int]], css_class: str) -> SafeString:
    """``text`` HTML-escaped, with each candidate span ``(start, end)`` wrapped in ``<mark class=css_class>``; a span
    overlapping one kept before it is dropped (so list the spans in order of priority), and nothing unescaped
    reaches the page."""
    spans: list[tuple[int, int]] = []
    for start, end in candidates:
        if all(end <= s or start >= e for s, e in spans):
            spans.append((start, end))
    out: list[str] = []
    position = 0
    for start, end in sorted(spans):
        out.append(escape(text[position:start]))
        out.append(f'<mark class="{escape(css_class)}">{escape(text[start:end])}</mark>')
        position = end
    out.append(escape(text[position:]))
    return mark_safe("".join(out))  # noqa: S308 (every piece of text above went through escape())


def highlight(text: str, phrases: Iterable[str], css_class: str) -> SafeString:
    """``text`` HTML-escaped, with every occurrence of each phrase wrapped in ``<mark class=css_class>``;
    the longest phrase wins where two overlap."""

    def occurrences() -> Iterator[tuple[int, int]]:
        for phrase in sorted({p for p in phrases if p.strip()}, key=len, reverse=True):
            start = text.find(phrase)
            while start != -1:
                yield start, start + len(phrase)
                start = text.find(phrase, start + len(phrase))

    return mark_spans(text, occurrences(), css_class)
