"""Converse relations: one fact written two ways ("X beat Y" / "Y lost to X") gets one canonical triplet.

A role reversal and a paraphrase can use the same words, or different words for the same roles; a graph
can only tell them apart when the same fact always gives the same triplet. Each rule below rewrites a
predicate frame (``scoring.kg.frames``) into its canonical direction, and every canonical form is chosen so
that it is not itself rewritten again (the maps' values are never their keys):

- ``binary_converse``: "X lose to Y" → (y, beat, x); "X work for Y" → (y, employ, x); "X belong to Y" →
  (y, own, x); and, same direction, "X win against Y" → (x, beat, y);
- ``transitive_converse``: "X follow Y" → (y, precede, x); "X succeed Y" → (y, precede, x);
- ``ternary_converse``: "X buy O from Y" → Y sell O to X; likewise receive/give, borrow/lend, learn/teach,
  rent or lease from/to, inherit/leave;
- ``prep_converse``, for the copula and verbs of position or occurrence ("lie", "take place"): a
  preposition or merged complement with a converse ("after" → "before", "below" → "above", "older than" →
  "younger than", "north of" → "south of", "son of" → "parent of", "more X than" → "less X than") swaps its
  object with the subject.

Only the direction matters for S3KG, so several words may share one canonical form ("taller" and "longer"
both become "shorter"; "mother" and "father" both "parent").
"""

from __future__ import annotations

from scoring.kg.frames import Frame

# (verb, preposition) → verb of the converse fact, object and subject swapped, the preposition dropped.
BINARY_CONVERSES: dict[tuple[str, str], str] = {
    ("lose", "to"): "beat",
    ("work", "for"): "employ",
    ("belong", "to"): "own",
}
# Left out on purpose, because their common sense is another one: "fall to" (prices fell to 5 dollars),
# "report to" (reported to the police), "win over" (won over the crowd).
# (verb, preposition) → the same fact with the same direction, written as a transitive verb.
BINARY_SYNONYMS: dict[tuple[str, str], str] = {
    ("win", "against"): "beat",
    ("prevail", "over"): "beat",
    ("triumph", "over"): "beat",
}
# verb → verb of the converse fact: "X follow Y" is "Y precede X".
TRANSITIVE_CONVERSES: dict[str, str] = {
    "follow": "precede",
    "succeed": "precede",
    "trail": "lead",
}
# (verb, source preposition) → (converse verb, goal preposition): "X buy O from Y" is "Y sell O to X".
TERNARY_CONVERSES: dict[tuple[str, str], tuple[str, str]] = {
    ("buy", "from"): ("sell", "to"),
    ("purchase", "from"): ("sell", "to"),
    ("receive", "from"): ("give", "to"),
    ("get", "from"): ("give", "to"),
    ("borrow", "from"): ("lend", "to"),
    ("learn", "from"): ("teach", "to"),
    ("rent", "from"): ("rent", "to"),
    ("lease", "from"): ("lease", "to"),
    ("inherit", "from"): ("leave", "to"),
}
# First word of a preposition or merged complement → its converse; the subject and object swap.
PREP_CONVERSES: dict[str, str] = {
    "after": "before",
    "below": "above",
    "beneath": "above",
    "underneath": "above",
    "north": "south",
    "east": "west",
    "older": "younger",
    "elder": "younger",
    "taller": "shorter",
    "longer": "shorter",
    "bigger": "smaller",
    "larger": "smaller",
    "greater": "smaller",
    "higher": "lower",
    "heavier": "lighter",
    "faster": "slower",
    "richer": "poorer",
    "stronger": "weaker",
    "better": "worse",
    "earlier": "later",
    "wider": "narrower",
    "warmer": "colder",
    "hotter": "colder",
    "deeper": "shallower",
    "thicker": "thinner",
    "superior": "inferior",
    "more": "less",
    "son": "parent",
    "daughter": "parent",
    "child": "parent",
    "grandson": "grandparent",
    "granddaughter": "grandparent",
    "grandchild": "grandparent",
    "employee": "employer",
    "student": "teacher",
    "pupil": "teacher",
    "successor": "predecessor",
    "subordinate": "manager",
}
# Same direction, one word: "mother of" and "father of" are both "parent of".
PREP_SYNONYMS: dict[str, str] = {
    "mother": "parent",
    "father": "parent",
    "grandmother": "grandparent",
    "grandfather": "grandparent",
}
# Nouns that name a relation to their "of" object; the copula rule merges "is the N of Y" into "be N of".
RELATIONAL_NOUNS = frozenset({*PREP_CONVERSES, *PREP_SYNONYMS, *PREP_CONVERSES.values()} - {"more"})
# Predicates whose prepositions state a position or an order between subject and object.
POSITIONAL_VERBS = frozenset(
    {"be", "lie", "sit", "stand", "hang", "come", "happen", "occur", "take place", "locate", "situate"}
)


def _swap(frame: Frame, verb: str) -> Frame:
    return frame.with_(subjects=frame.objects, objects=frame.subjects, verb=verb)


def binary_converse(frame: Frame) -> list[Frame] | None:
    """ "X lose to Y (in Z)" → Y beat X (in Z); only for a verb without a direct object."""
    if frame.objects:
        return None
    for i, (prep, pobjs) in enumerate(frame.preps):
        rest = frame.preps[:i] + frame.preps[i + 1 :]
        if (frame.verb, prep) in BINARY_CONVERSES:
            verb = BINARY_CONVERSES[(frame.verb, prep)]
            return [frame.with_(subjects=pobjs, verb=verb, objects=frame.subjects, preps=rest)]
        if (frame.verb, prep) in BINARY_SYNONYMS:
            return [frame.with_(verb=BINARY_SYNONYMS[(frame.verb, prep)], objects=pobjs, preps=rest)]
    return None


def transitive_converse(frame: Frame) -> list[Frame] | None:
    """ "X follow Y" → Y precede X."""
    if frame.objects and frame.verb in TRANSITIVE_CONVERSES:
        return [_swap(frame, TRANSITIVE_CONVERSES[frame.verb])]
    return None


def ternary_converse(frame: Frame) -> list[Frame] | None:
    """ "X buy O from Y" → Y sell O to X: the source becomes the subject, the subject the goal."""
    for i, (prep, pobjs) in enumerate(frame.preps):
        target = TERNARY_CONVERSES.get((frame.verb, prep))
        if target is not None:
            verb, goal = target
            rest = frame.preps[:i] + frame.preps[i + 1 :]
            return [frame.with_(subjects=pobjs, verb=verb, preps=((goal, frame.subjects), *rest))]
    return None


def _converse_prep(prep: str) -> tuple[str, bool]:
    """The canonical preposition and whether subject and object swap."""
    first, _, rest = prep.partition(" ")
    if first in PREP_CONVERSES:
        return " ".join(filter(None, (PREP_CONVERSES[first], rest))), True
    if first in PREP_SYNONYMS:
        return " ".join(filter(None, (PREP_SYNONYMS[first], rest))), False
    return prep, False


def prep_converse(frame: Frame) -> list[Frame] | None:
    """For positional predicates: each converse preposition becomes its own frame with the roles swapped."""
    if frame.verb not in POSITIONAL_VERBS or frame.negated:
        return None
    kept: list[tuple[str, tuple[str, ...]]] = []
    out: list[Frame] = []
    changed = False
    for prep, pobjs in frame.preps:
        canonical, swap = _converse_prep(prep)
        changed = changed or canonical != prep
        if swap:
            out.append(frame.with_(subjects=pobjs, objects=(), preps=((canonical, frame.subjects),)))
        else:
            kept.append((canonical, pobjs))
    if not changed:
        return None
    if frame.objects or kept:
        out.insert(0, frame.with_(preps=tuple(kept)))
    return out


RULES = (binary_converse, transitive_converse, ternary_converse, prep_converse)


def canonical(frame: Frame) -> list[Frame]:
    """The frame in canonical direction (the first rule that applies); unchanged when none does."""
    for rule in (prep_converse,) if frame.passive else RULES:
        rewritten = rule(frame)
        if rewritten is not None:
            return rewritten
    return [frame]
