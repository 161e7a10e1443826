"""The audit trail now lives in evalplatform.audit (its events were copied there by audit 0002)."""

from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [
        ("annotation", "0001_initial"),
        ("audit", "0002_events_from_annotation"),
    ]

    operations = [migrations.DeleteModel(name="AuditEvent")]
