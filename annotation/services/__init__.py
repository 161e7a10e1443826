"""Writes of the annotation app (the only place that writes): queue, reviews and consensus, TAU labels,
calibration labels; every submission and decision writes an AuditEvent in the same transaction."""

from annotation.services.calibration import calibration_label_submit, calibration_queue
from annotation.services.campaigns import Queued, calibration_sample, review_queue_dataset, tau_queue_run
from annotation.services.queue import LEASE, AnnotationError, review_next, tau_next
from annotation.services.review import (
    annotation_queue_questions,
    consensus_decide,
    consensus_reopen,
    review_submit,
)
from annotation.services.tau import tau_item_create, tau_label_submit

__all__ = [
    "LEASE",
    "AnnotationError",
    "Queued",
    "annotation_queue_questions",
    "calibration_label_submit",
    "calibration_queue",
    "calibration_sample",
    "consensus_decide",
    "consensus_reopen",
    "review_next",
    "review_queue_dataset",
    "review_submit",
    "tau_item_create",
    "tau_label_submit",
    "tau_next",
    "tau_queue_run",
]
