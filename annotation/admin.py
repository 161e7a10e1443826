"""Admin pages of the annotation app: read-mostly views for admins (writes go through services)."""

from django.contrib import admin

from annotation.models import (
    CalibrationItem,
    CalibrationLabel,
    Consensus,
    Review,
    ReviewAssignment,
    ReviewItem,
    TauAssignment,
    TauItem,
    TauLabel,
)


@admin.register(ReviewItem)
class ReviewItemAdmin(admin.ModelAdmin):
    list_display = ["pk", "question", "overlap", "state", "created_at"]
    list_filter = ["state"]


@admin.register(TauItem)
class TauItemAdmin(admin.ModelAdmin):
    list_display = ["pk", "overlap", "state", "generation", "created_at"]
    list_filter = ["state"]


@admin.register(ReviewAssignment, TauAssignment)
class AssignmentAdmin(admin.ModelAdmin):
    list_display = ["pk", "item", "annotator", "status", "lease_expires_at", "submitted_at"]
    list_filter = ["status"]


@admin.register(Consensus)
class ConsensusAdmin(admin.ModelAdmin):
    list_display = ["question", "version", "decision", "rule", "decided_by", "decided_at"]
    readonly_fields = [f.name for f in Consensus._meta.fields]


admin.site.register([Review, TauLabel, CalibrationItem, CalibrationLabel])
