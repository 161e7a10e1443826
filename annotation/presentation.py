"""What the annotation pages show around the work itself: where an item stands in the annotator's queue ("3 of 16"),
terms marked inside a text (a triplet's head and tail in the answer or gold text), a word diff of two ground truths,
and why a consensus needs a decision. Reads only; every piece of text is HTML-escaped before it is marked up."""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable
from dataclasses import dataclass

from django.db.models import Count, F, Q
from django.utils import timezone
from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe

from annotation.consensus_rule import AGREE_COSINE, ground_truths_agree
from annotation.models import AssignmentStatus, ItemState, Review, ReviewAssignment, ReviewItem
from evalplatform.corpus.highlight import mark_spans


@dataclass(frozen=True)
class QueuePosition:
    number: int
    total: int

    def __str__(self) -> str:
        return f"{self.number} of {self.total}"


def review_position(assignment: ReviewAssignment) -> QueuePosition:
    """The assignment's place in its annotator's work on the dataset: the questions they submitted there, this one,
    and the open questions there that still have a slot for them."""
    dataset_id = assignment.item.question.dataset_id
    mine = ReviewAssignment.objects.filter(annotator_id=assignment.annotator_id, item__question__dataset_id=dataset_id)
    submitted = mine.filter(status=AssignmentStatus.SUBMITTED).exclude(pk=assignment.pk).count()
    now = timezone.now()
    live = Q(assignments__status=AssignmentStatus.SUBMITTED) | Q(
        assignments__status=AssignmentStatus.CLAIMED, assignments__lease_expires_at__gt=now
    )
    waiting = (
        ReviewItem.objects.filter(question__dataset_id=dataset_id, state=ItemState.OPEN)
        .exclude(assignments__annotator_id=assignment.annotator_id)
        .annotate(live=Count("assignments", filter=live))
        .filter(live__lt=F("overlap"))
        .count()
    )
    return QueuePosition(submitted + 1, submitted + 1 + waiting)


def mark_terms(text: str, terms: Iterable[str], css_class: str) -> SafeString:
    """``text`` escaped, with each term (case-insensitive, whole words) wrapped in ``<mark class=css_class>``; the
    longest term wins where two overlap."""
    ordered = sorted({t.strip() for t in terms if t and t.strip()}, key=len, reverse=True)
    matches = (
        found.span()
        for term in ordered
        for found in re.finditer(r"(?<!\w)" + re.escape(term) + r"(?!\w)", text, flags=re.IGNORECASE)
    )
    return mark_spans(text, matches, css_class)


def word_diff(a: str, b: str) -> tuple[SafeString, SafeString]:
    """The two texts word by word: in ``a`` what ``b`` lacks is wrapped in ``<del>``, in ``b`` what ``a`` lacks in
    ``<ins>``."""
    words_a, words_b = a.split(), b.split()
    left: list[str] = []
    right: list[str] = []
    matcher = difflib.SequenceMatcher(a=words_a, b=words_b, autojunk=False)
    for op, i1, i2, j1, j2 in matcher.get_opcodes():
        chunk_a = escape(" ".join(words_a[i1:i2]))
        chunk_b = escape(" ".join(words_b[j1:j2]))
        if op == "equal":
            left.append(chunk_a)
            right.append(chunk_b)
            continue
        if chunk_a:
            left.append(f"<del>{chunk_a}</del>")
        if chunk_b:
            right.append(f"<ins>{chunk_b}</ins>")
    return mark_safe(" ".join(left)), mark_safe(" ".join(right))  # noqa: S308 (escaped above)


def _verdict(review: Review) -> str:
    coherent = "coherent" if review.context_coherent else "not coherent"
    valid = "valid" if review.question_valid else "not valid"
    return f"context {coherent}, question {valid}"


def consensus_reasons(reviews: list[Review]) -> list[str]:
    """Why the automatic rule left this question to a person (docs/annotation.md): one review accepts and the other
    does not, or both accept with ground truths whose key facts (numbers, dates, names) or meaning differ."""
    if len(reviews) < 2:
        return ["The second review is not in yet."]
    first, second = reviews[0], reviews[1]
    names = [r.assignment.annotator.get_username() for r in (first, second)]
    if first.accepts != second.accepts:
        return [
            f"{names[0]}: {_verdict(first)}; {names[1]}: {_verdict(second)}. One accepts the question, one does not."
        ]
    if not first.accepts:
        return ["Both reviews reject the question (the rule rejects it by itself)."]
    agreement = ground_truths_agree(first.ground_truth, second.ground_truth)
    reasons = []
    for label, (a, b) in (("numbers and dates", agreement.numbers), ("names", agreement.names)):
        if a != b:
            only_a = [x for x in a if x not in b] or ["none"]
            only_b = [x for x in b if x not in a] or ["none"]
            reasons.append(
                f"The {label} differ: {', '.join(only_a)} ({names[0]}) against {', '.join(only_b)} ({names[1]})."
            )
    if agreement.cosine is not None and not agreement.agree:
        reasons.append(
            f"The two ground truths mean different things: similarity {agreement.cosine:.2f}, below {AGREE_COSINE:.2f}."
        )
    return reasons or ["The two ground truths agree: the rule decided, or a person decided since."]
