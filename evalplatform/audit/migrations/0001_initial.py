import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models


class Migration(migrations.Migration):
    initial = True

    dependencies = [
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.CreateModel(
            name="AuditEvent",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                (
                    "action",
                    models.CharField(
                        help_text="dataset.import, run.launch, review.submit, consensus.decide...", max_length=60
                    ),
                ),
                ("object_type", models.CharField(help_text="app_label.model of the object acted on.", max_length=60)),
                ("object_id", models.PositiveBigIntegerField()),
                ("payload", models.JSONField(blank=True, default=dict, help_text="What changed (never a secret).")),
                (
                    "dataset_id",
                    models.PositiveBigIntegerField(
                        blank=True,
                        db_index=True,
                        help_text="Id of the dataset the object belongs to, so that researchers see their projects' events.",
                        null=True,
                    ),
                ),
                (
                    "dataset_name",
                    models.CharField(blank=True, help_text="The dataset's name when it happened.", max_length=120),
                ),
                ("at", models.DateTimeField(auto_now_add=True)),
                (
                    "actor",
                    models.ForeignKey(
                        blank=True,
                        null=True,
                        on_delete=django.db.models.deletion.SET_NULL,
                        related_name="+",
                        to=settings.AUTH_USER_MODEL,
                    ),
                ),
            ],
            options={
                "ordering": ["-at", "-pk"],
                "indexes": [models.Index(fields=["object_type", "object_id"], name="audit_audit_object__0e78a5_idx")],
            },
        ),
    ]
