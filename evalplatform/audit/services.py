"""The one writer of the audit trail."""

from __future__ import annotations

from typing import Any, Protocol

from django.db import models

from evalplatform.audit.models import AuditEvent
from evalplatform.roles import AnyUser, signed_in_user


class _Named(Protocol):
    pk: Any
    name: str


def audit_record(
    *,
    actor: AnyUser | None,
    action: str,
    obj: models.Model,
    payload: dict[str, Any],
    dataset: _Named | None = None,
) -> AuditEvent:
    """Write one event; call it inside the same ``transaction.atomic`` block as the change it records, so that
    the change and its event are committed together or not at all. An anonymous actor is recorded as none."""
    return AuditEvent.objects.create(
        actor=signed_in_user(actor),
        action=action,
        object_type=obj._meta.label_lower,
        object_id=obj.pk,
        payload=payload,
        dataset_id=dataset.pk if dataset is not None else None,
        dataset_name=dataset.name if dataset is not None else "",
    )
