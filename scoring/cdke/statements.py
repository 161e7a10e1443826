"""The evaluators' atomic statements of a text (for FC), extracted once and shared.

A statement set is keyed by the evaluator, the extraction prompt's version and the hash of everything the prompt
is given: the question *and* the text (the question completes the statements, so the same answer to two
questions is two extractions). A ground truth is split once per question and evaluator and reused by every model,
temperature and sample. When several workers miss the same set at once, one of them (the one whose pending row
goes in first) asks the evaluator while the others wait for its answer; a claim older than ``CLAIM_TIMEOUT_S``
(its worker died) is taken over."""

from __future__ import annotations

import time
from datetime import timedelta
from typing import TYPE_CHECKING

from django.db import IntegrityError
from django.utils import timezone

from evalplatform.hashing import text_hash
from evalplatform.single_writes import savepoint_if_in_transaction, set_as_stored
from scoring.cdke.verdicts import parse_statements
from scoring.models import ScoreStatus, StatementSet

if TYPE_CHECKING:
    from scoring.cdke.judge import JudgeContext

# How long a claim on a statement set holds before another worker takes it over: longer than an extraction
# call with its retries and repair (the endpoints' timeouts default to 60 s).
CLAIM_TIMEOUT_S = 300.0
POLL_S = 0.2


def statements_key(question_text: str, text: str) -> str:
    return text_hash(f"{question_text}\n\x00\n{text}")


def statements_for(
    judge: JudgeContext, *, question_text: str, text: str, question_id: int | None = None
) -> StatementSet:
    """The evaluator's statements of ``text`` as an answer to ``question_text``, extracted at most once (and by
    one worker at a time). Provider errors propagate; the claim is then released for the next try."""
    digest = statements_key(question_text, text)
    key: dict[str, object] = {
        "evaluator": judge.evaluator,
        "text_hash": digest,
        "prompt_version": judge.prompts.extract.version_tag,
    }
    deadline = time.monotonic() + CLAIM_TIMEOUT_S
    while True:
        found = StatementSet.objects.filter(**key).first()
        if found is not None and found.ready:
            return found
        if found is None and (claimed := _claim_new(key, question_id)) is not None:
            found = claimed
            break
        if found is not None and _take_over_stale(found):
            break
        if time.monotonic() > deadline:
            raise TimeoutError(f"statements {digest[:12]} are still being extracted by another worker")
        time.sleep(POLL_S)
    try:
        outcome = judge.call(judge.prompts.extract, parse_statements, {"question": question_text, "text": text})
    except BaseException:
        StatementSet.objects.filter(**key, ready=False).delete()  # let the next try claim it
        raise
    done = {
        "statements": list(outcome.value or []),
        "status": ScoreStatus.OK if outcome.status == "ok" else ScoreStatus.UNPARSEABLE,
        "raw_output": outcome.raw,
        "ready": True,
    }
    StatementSet.objects.filter(**key).update(**done)
    set_as_stored(found, done)  # the row as stored (raw_output scrubbed), without reading it back
    return found


def _claim_new(key: dict[str, object], question_id: int | None) -> StatementSet | None:
    """The pending row this worker claimed, or None when another worker claimed it first."""
    try:
        with savepoint_if_in_transaction():
            return StatementSet.objects.create(**key, question_id=question_id, ready=False, claimed_at=timezone.now())
    except IntegrityError:
        return None  # another worker claimed it first


def _take_over_stale(found: StatementSet) -> bool:
    stale_before = timezone.now() - timedelta(seconds=CLAIM_TIMEOUT_S)
    now = timezone.now()
    taken = bool(
        StatementSet.objects.filter(pk=found.pk, ready=False, claimed_at__lt=stale_before).update(claimed_at=now)
    )
    if taken:
        found.claimed_at = now
    return taken
