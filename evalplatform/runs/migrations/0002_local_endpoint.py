"""The `local` endpoint exists out of the box: the packaged gemma-3-270m served by llama.cpp on demand."""

from django.db import migrations


def create_local(apps, schema_editor):
    ModelEndpoint = apps.get_model("runs", "ModelEndpoint")
    ModelEndpoint.objects.get_or_create(
        name="local",
        defaults={
            "provider": "local",
            "model_id": "gemma-3-270m-q4_k_m",
            "mode": "completion",
            # Sampling of paper C (Context Is King, section 4): temperature 0.2, top-p 0.9, top-k 50.
            "default_temperature": 0.2,
            "default_top_p": 0.9,
            "default_top_k": 50,
            "default_max_tokens": 64,
            "max_concurrency": 1,
        },
    )


def remove_local(apps, schema_editor):
    apps.get_model("runs", "ModelEndpoint").objects.filter(name="local", provider="local").delete()


class Migration(migrations.Migration):
    dependencies = [("runs", "0001_initial")]
    operations = [migrations.RunPython(create_local, remove_local)]
