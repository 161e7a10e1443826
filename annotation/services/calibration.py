"""Judge calibration: a seeded random sample of a run's generations gets human LAV / Acc / Cm labels."""

from __future__ import annotations

import random

from django.contrib.auth.models import User
from django.db import IntegrityError, transaction

from annotation.agreement import QUARTER_SCALE
from annotation.models import CalibrationItem, CalibrationLabel
from annotation.services.queue import AnnotationError
from evalplatform.audit.services import audit_record
from evalplatform.runs.models import Generation, Run
from scoring.models import ErrorTypeJudgement


def calibration_queue(*, run: Run, sample_size: int, seed: int, actor: User | None = None) -> list[CalibrationItem]:
    """Queue ``sample_size`` of the run's finished generations, drawn with ``random.Random(seed)`` from
    them in primary-key order (the same seed draws the same sample); already queued ones are kept."""
    if sample_size < 1:
        raise ValueError("sample_size must be at least 1")
    ids = list(run.generations.filter(status=Generation.Status.DONE).order_by("pk").values_list("pk", flat=True))
    chosen = sorted(random.Random(seed).sample(ids, min(sample_size, len(ids))))
    with transaction.atomic():
        CalibrationItem.objects.bulk_create(
            [CalibrationItem(generation_id=pk, seed=seed, queued_by=actor) for pk in chosen],
            ignore_conflicts=True,
        )
        audit_record(
            actor=actor,
            action="calibration.queue",
            obj=run,
            payload={"seed": seed, "sample_size": sample_size, "generations": chosen},
            dataset=run.dataset,
        )
    return list(CalibrationItem.objects.filter(generation_id__in=chosen).order_by("pk"))


def calibration_label_submit(
    *, item: CalibrationItem, annotator: User, lav: int, acc: float, cm: float, error_type: str = ""
) -> CalibrationLabel:
    """One human label per generation and annotator: LAV 0/1, Acc and Cm on the judges' quarter scale, and for
    a not-valid answer optionally why (hallucination, context misalignment, verbose: paper C's error analysis)."""
    if lav not in (0, 1):
        raise AnnotationError("LAV is 1 (valid) or 0 (not valid)")
    if acc not in QUARTER_SCALE or cm not in QUARTER_SCALE:
        raise AnnotationError("Acc and Cm are one of 0, 0.25, 0.5, 0.75, 1")
    if error_type and error_type not in ErrorTypeJudgement.Label.values:
        raise AnnotationError(f"the error type is one of {', '.join(ErrorTypeJudgement.Label.values)}")
    if error_type and lav == 1:
        raise AnnotationError("an error type is for a not-valid answer")
    try:
        with transaction.atomic():
            label = CalibrationLabel.objects.create(
                item=item, annotator=annotator, lav=lav, acc=acc, cm=cm, error_type=error_type
            )
            audit_record(
                actor=annotator,
                action="calibration.label",
                obj=label,
                payload={"generation": item.generation_id, "lav": lav, "acc": acc, "cm": cm, "error_type": error_type},
                dataset=item.generation.run.dataset,
            )
    except IntegrityError as exc:
        raise AnnotationError("you have already labelled this generation") from exc
    return label
