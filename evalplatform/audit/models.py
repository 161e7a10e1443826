"""The audit trail: one row per action that changes shared state (an import, a launch, a stop, a resume, a
review, a decision, an export), written in the same transaction as the change it records.

The trail sits below every other app, so it refers to what it describes by id (``object_type`` and
``object_id``, ``dataset_id`` with the dataset's name as it was), never by a foreign key: an event outlives the
rows it describes, and deleting a dataset neither cuts nor blanks its history."""

from django.conf import settings
from django.db import models


class AuditEvent(models.Model):
    """Who did what to which object, and when."""

    actor = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    action = models.CharField(max_length=60, help_text="dataset.import, run.launch, review.submit, consensus.decide...")
    object_type = models.CharField(max_length=60, help_text="app_label.model of the object acted on.")
    object_id = models.PositiveBigIntegerField()
    payload = models.JSONField(default=dict, blank=True, help_text="What changed (never a secret).")
    dataset_id = models.PositiveBigIntegerField(
        null=True,
        blank=True,
        db_index=True,
        help_text="Id of the dataset the object belongs to, so that researchers see their projects' events.",
    )
    dataset_name = models.CharField(max_length=120, blank=True, help_text="The dataset's name when it happened.")
    at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-at", "-pk"]
        indexes = [models.Index(fields=["object_type", "object_id"])]

    def __str__(self) -> str:
        return f"{self.at:%Y-%m-%d %H:%M} {self.action} {self.object_type}:{self.object_id}"
