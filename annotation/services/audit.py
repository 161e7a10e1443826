"""The audit trail: one row per submission and consensus decision, written inside the caller's transaction."""

from __future__ import annotations

from typing import Any

from django.contrib.auth.models import User
from django.db import models

from annotation.models import AuditEvent
from evalplatform.corpus.models import Dataset


def audit_record(
    *,
    actor: User | None,
    action: str,
    obj: models.Model,
    payload: dict[str, Any],
    dataset: Dataset | None = None,
) -> AuditEvent:
    """Write one event; call it in the same ``transaction.atomic`` block as the change it records."""
    return AuditEvent.objects.create(
        actor=actor,
        action=action,
        object_type=obj._meta.label_lower,
        object_id=obj.pk,
        payload=payload,
        dataset=dataset,
    )
