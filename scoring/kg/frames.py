"""A predicate frame: who does what to whom for one predicate, as labels, before it becomes triplets.

The dependency extractor reads each predicate of a parse into a ``Frame`` (subjects, the verb phrase with
its negation and voice, objects, prepositional objects); rules that rewrite a whole predicate, such as the
converse relations of ``scoring.kg.converse``, work on frames; ``frame_triplets`` then writes one
``(subject, relation, object)`` triplet per subject and object and one ``(subject, relation prep, object)``
per prepositional object.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field, replace

from scoring.kg.types import Triplet


@dataclass(frozen=True)
class Frame:
    """One predicate with its participants, every label already normalised."""

    subjects: tuple[str, ...]
    verb: str  # the verb phrase without negation or passive "be": "decide to sell", "set up", "be"
    objects: tuple[str, ...] = ()
    preps: tuple[tuple[str, tuple[str, ...]], ...] = field(default=())
    negated: bool = False
    passive: bool = False  # a passive without an agent: the relation starts with "be"

    def relation(self, prep: str | None = None) -> str:
        """``not`` first, then ``be`` for an agentless passive, the verb phrase, the preposition."""
        parts = (["not"] if self.negated else []) + (["be"] if self.passive else []) + [self.verb]
        if prep:
            parts.append(prep)
        return " ".join(p for p in parts if p)

    def with_(self, **changes: object) -> Frame:
        return replace(self, **changes)  # type: ignore[arg-type]


def intransitive_triplets(frame: Frame) -> Iterator[Triplet]:
    """Rule ``intransitive``: a frame with subjects and nothing else gives (subject, be, verb):
    "the others are finished" → (other, be, finish), "the city was not captured" → (city, not be, capture)."""
    if frame.objects or frame.preps or frame.verb in ("", "be"):
        return
    for head in frame.subjects:
        yield Triplet(head, "not be" if frame.negated else "be", frame.verb)


def frame_triplets(frame: Frame) -> Iterator[Triplet]:
    """Every subject to every object under the verb, and to every prepositional object under "verb prep"."""
    for head in frame.subjects:
        for tail in frame.objects:
            yield Triplet(head, frame.relation(), tail)
        for prep, pobjs in frame.preps:
            for pobj in pobjs:
                yield Triplet(head, frame.relation(prep), pobj)
