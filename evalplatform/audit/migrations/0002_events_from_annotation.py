"""The audit trail moved from the annotation app to its own app below every other: copy the events written
so far (keeping their times), with the dataset's id and name in place of the foreign key."""

from django.db import migrations


def copy_events(apps, schema_editor):
    old = apps.get_model("annotation", "AuditEvent")
    new = apps.get_model("audit", "AuditEvent")
    rows = []
    for event in old.objects.select_related("dataset").order_by("pk").iterator():
        rows.append(
            new(
                actor_id=event.actor_id,
                action=event.action,
                object_type=event.object_type,
                object_id=event.object_id,
                payload=event.payload,
                dataset_id=event.dataset_id,
                dataset_name=event.dataset.name if event.dataset_id else "",
            )
        )
    created = new.objects.bulk_create(rows, batch_size=1000)
    # auto_now_add set every time to now: put each event's own time back.
    for row, event in zip(created, old.objects.order_by("pk").iterator(), strict=True):
        new.objects.filter(pk=row.pk).update(at=event.at)


class Migration(migrations.Migration):
    dependencies = [
        ("audit", "0001_initial"),
        ("annotation", "0001_initial"),
    ]

    operations = [migrations.RunPython(copy_events, migrations.RunPython.noop)]
