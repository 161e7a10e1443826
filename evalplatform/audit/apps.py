from django.apps import AppConfig


class AuditConfig(AppConfig):
    name = "evalplatform.audit"
    label = "audit"
    verbose_name = "Audit trail: who changed what, in the same transaction as the change"
    default_auto_field = "django.db.models.BigAutoField"
