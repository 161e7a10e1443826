"""The audit trail in the admin: read only, never changed or deleted."""

from django.contrib import admin

from evalplatform.audit.models import AuditEvent


@admin.register(AuditEvent)
class AuditEventAdmin(admin.ModelAdmin):
    list_display = ["at", "actor", "action", "object_type", "object_id", "dataset_name"]
    list_filter = ["action"]
    readonly_fields = [f.name for f in AuditEvent._meta.fields]

    def has_change_permission(self, request: object, obj: object = None) -> bool:
        return False

    def has_delete_permission(self, request: object, obj: object = None) -> bool:
        return False
