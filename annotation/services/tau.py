"""Three-annotator TAU alignment labelling: items from the scoring pipeline, and blind labels.

A label marks one-to-one aligned pairs (answer index, gold index) and gives every triplet left unaligned
an error type: an answer triplet is relation_wrong, entity_wrong or extra; a gold triplet is
relation_wrong, entity_wrong or missing (the TAU categories, S3KG/TAU, Arumugam et al.). A label's indices are 0-based
(as the API takes them); refusals number the triplets from 1, as the page shows them."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from django.contrib.auth.models import User
from django.db import transaction

from annotation.models import TAU_OVERLAP, ItemState, TauAssignment, TauItem, TauLabel
from annotation.services.queue import AnnotationError, assignment_mark_submitted, submitted_count
from evalplatform.audit.services import audit_record
from evalplatform.runs.models import Generation
from scoring.models import GraphScore

ANSWER_ERRORS = frozenset({"relation_wrong", "entity_wrong", "extra"})
GOLD_ERRORS = frozenset({"relation_wrong", "entity_wrong", "missing"})


def _triplets(value: Any, name: str) -> list[list[str]]:
    if not isinstance(value, list | tuple):
        raise ValueError(f"{name} must be a list of [head, relation, tail]")
    out: list[list[str]] = []
    for i, t in enumerate(value):
        if not isinstance(t, list | tuple) or len(t) != 3 or not all(isinstance(c, str) for c in t):
            raise ValueError(f"{name}[{i}] is not a [head, relation, tail] of three strings")
        out.append([str(c) for c in t])
    return out


def tau_item_create(
    *,
    gold: Sequence[Sequence[str]],
    answer: Sequence[Sequence[str]],
    generation: Generation | None = None,
    graph_score: GraphScore | None = None,
    overlap: int = TAU_OVERLAP,
) -> TauItem:
    """Queue one TAU item (a snapshot of its gold and answer triplets) for three blind labels."""
    if graph_score is not None and generation is None:
        generation = graph_score.generation
    return TauItem.objects.create(
        gold=_triplets(gold, "gold"),
        answer=_triplets(answer, "answer"),
        generation=generation,
        graph_score=graph_score,
        overlap=overlap,
    )


# Digits only, as JSON object keys carry indices ("3"); nine at most, far past any graph's size.
INDEX_TEXT = re.compile(r"[0-9]{1,9}")


def _index(value: Any, n: int, what: str) -> int:
    """A triplet index from 0 to n - 1: a whole number, or its digits as a string (an error key). A bool, a
    float, a negative number or any other text is refused, never read as something else."""
    if isinstance(value, int) and not isinstance(value, bool):
        index = value
    elif isinstance(value, str) and INDEX_TEXT.fullmatch(value):
        index = int(value)
    else:
        raise AnnotationError(f"{what} {str(value)[:40]!r} is not a triplet index (a whole number from 0)")
    if not 0 <= index < n:
        raise AnnotationError(f"{what} {index} is out of range: this item has {n} (0 to {n - 1})")
    return index


def _validate_label(
    item: TauItem,
    aligned: Sequence[Sequence[int]],
    answer_errors: Mapping[str, str],
    gold_errors: Mapping[str, str],
) -> tuple[list[list[int]], dict[str, str], dict[str, str]]:
    """The label in its stored form, or AnnotationError naming the first thing wrong with it: every index must
    name a triplet of the item, alignment is one-to-one, and every unaligned triplet has exactly one error type."""
    n_answer, n_gold = len(item.answer), len(item.gold)
    if not isinstance(aligned, list | tuple):
        raise AnnotationError("aligned is a list of [answer index, gold index] pairs")
    pairs: list[list[int]] = []
    used_a: set[int] = set()
    used_g: set[int] = set()
    for pair in aligned:
        if not isinstance(pair, list | tuple) or len(pair) != 2:
            raise AnnotationError("an aligned pair is [answer index, gold index]")
        a = _index(pair[0], n_answer, "aligned answer triplet")
        g = _index(pair[1], n_gold, "aligned gold triplet")
        if a in used_a or g in used_g:
            raise AnnotationError("alignment is one-to-one: a triplet appears in two pairs")
        used_a.add(a)
        used_g.add(g)
        pairs.append([a, g])
    answer_out = _errors(answer_errors, n_answer, used_a, ANSWER_ERRORS, "answer")
    gold_out = _errors(gold_errors, n_gold, used_g, GOLD_ERRORS, "gold")
    return sorted(pairs), answer_out, gold_out


def _errors(errors: Mapping[str, str], n: int, aligned: set[int], allowed: frozenset[str], side: str) -> dict[str, str]:
    if not isinstance(errors, Mapping):
        raise AnnotationError(f"{side}_errors maps a triplet index to its error type")
    out: dict[str, str] = {}
    for key, kind in errors.items():
        index = _index(key, n, f"{side} triplet")
        if str(index) in out:
            raise AnnotationError(f"{side} triplet {index + 1} is given two error types")
        if index in aligned:
            raise AnnotationError(f"{side} triplet {index + 1} is aligned and cannot also have an error type")
        if kind not in allowed:
            raise AnnotationError(f"{side} triplet {index + 1}: error type must be one of {', '.join(sorted(allowed))}")
        out[str(index)] = kind
    missing = [i for i in range(n) if i not in aligned and str(i) not in out]
    if missing:
        numbers = ", ".join(str(i + 1) for i in missing)
        raise AnnotationError(f"give an error type to every unaligned {side} triplet (left: {side} {numbers})")
    return out


def tau_label_submit(
    *,
    assignment: TauAssignment,
    actor: User,
    aligned: Sequence[Sequence[int]],
    answer_errors: Mapping[str, str],
    gold_errors: Mapping[str, str],
    comment: str = "",
) -> TauLabel:
    """Record one annotator's alignment of their own claimed TAU item, with an audit event."""
    with transaction.atomic():
        item = TauItem.objects.select_for_update().get(pk=assignment.item_id)
        pairs, answer_out, gold_out = _validate_label(item, aligned, answer_errors, gold_errors)
        assignment_mark_submitted(assignment, actor=actor)
        label = TauLabel.objects.create(
            assignment=assignment,
            aligned=pairs,
            answer_errors=answer_out,
            gold_errors=gold_out,
            comment=comment,
        )
        audit_record(
            actor=actor,
            action="tau.submit",
            obj=label,
            payload={"item": item.pk, "aligned": pairs, "answer_errors": answer_out, "gold_errors": gold_out},
            dataset=item.generation.run.dataset if item.generation_id and item.generation else None,
        )
        if submitted_count(item) >= item.overlap:
            item.state = ItemState.COMPLETE
            item.save(update_fields=["state"])
    return label
