"""Runs launched before the evaluators' prompts had versions used set "1": record it in their spec, so that
resuming or re-judging one of them uses the prompts it was judged with (new runs take the current set)."""

from django.db import migrations


def record_first_prompt_set(apps, schema_editor):
    Run = apps.get_model("runs", "Run")
    for run in Run.objects.exclude(kind="similarity_benchmark").iterator():
        if isinstance(run.spec, dict) and "judge_prompts" not in run.spec:
            run.spec = {**run.spec, "judge_prompts": "1"}
            run.save(update_fields=["spec"])


class Migration(migrations.Migration):
    dependencies = [("runs", "0005_endpoint_timeouts")]

    operations = [migrations.RunPython(record_first_prompt_set, migrations.RunPython.noop)]
