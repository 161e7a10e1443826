"""The triplet-extractor interface and a registry of the extractors by name.

An extractor turns a text into normalised (head, relation, tail) triplets: labels lower-cased and
lemmatised (S3KG §3.1), duplicates dropped, in the order of first appearance. ``name`` and ``version``
together key stored graphs, so a text is never extracted twice by the same extractor version.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol, runtime_checkable

from scoring.kg.types import Triplet


@runtime_checkable
class TripletExtractor(Protocol):
    """Anything that extracts normalised triplets from a text."""

    name: str
    version: str

    def extract(self, text: str) -> list[Triplet]:
        """Normalised, deduplicated triplets of ``text`` in the order they first appear."""
        ...


def _dependency(**kwargs: Any) -> TripletExtractor:
    from scoring.kg.dependency import DependencyExtractor

    return DependencyExtractor(**kwargs)


def _llm(**kwargs: Any) -> TripletExtractor:
    from scoring.kg.llm_extractor import LLMExtractor

    return LLMExtractor(**kwargs)


# Imports are deferred so that asking for one extractor never loads the other's dependencies.
_REGISTRY: dict[str, Callable[..., TripletExtractor]] = {
    "dependency": _dependency,
    "llm": _llm,
}


def extractor_names() -> list[str]:
    """The names ``get_extractor`` accepts."""
    return sorted(_REGISTRY)


def get_extractor(name: str, **kwargs: Any) -> TripletExtractor:
    """Build the extractor registered as ``name``; ``kwargs`` go to its constructor.

    ``get_extractor("llm", complete=...)`` needs the completion callable (see ``LLMExtractor``).
    Raises ``KeyError`` naming the known extractors when ``name`` is not one of them.
    """
    try:
        factory = _REGISTRY[name]
    except KeyError:
        raise KeyError(f"unknown triplet extractor {name!r}; known: {', '.join(extractor_names())}") from None
    return factory(**kwargs)
