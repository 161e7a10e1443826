"""python manage.py reproduce_run RUN_ID [--use-cache] [--sync] [--json FILE]"""

import json
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from evalplatform.runs.cli import finite_number, follow_run, run_inline, whole_number
from evalplatform.runs.fingerprint import fingerprint_lines, run_fingerprint
from evalplatform.runs.models import Run
from evalplatform.runs.spec import SpecError
from scoring.cdke.reproduce import ReproduceError, moved_scores, moved_table, reproduce_launch


class Command(BaseCommand):
    help = (
        "Run a finished run again from its fingerprint (same dataset version, models, prompts, constants and "
        "seeds; the response cache off unless --use-cache) and report every score that moved."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("run_id", type=whole_number())
        parser.add_argument("--use-cache", action="store_true", help="Serve repeated calls from the response cache.")
        parser.add_argument("--sync", action="store_true", help="Run inline instead of through the workers.")
        parser.add_argument("--json", type=Path, help="Write the moved scores as JSON to this file.")
        parser.add_argument(
            "--timeout", type=finite_number(), default=24 * 3600, help="Seconds to wait for the workers."
        )

    def handle(self, *args: Any, **options: Any) -> None:
        first = Run.objects.select_related("dataset").filter(pk=options["run_id"]).first()
        if first is None:
            raise CommandError(f"no run {options['run_id']}")
        for line in fingerprint_lines(run_fingerprint(first)):
            self.stdout.write(f"# {line}")
        if options["sync"]:
            run_inline()
        try:
            second = reproduce_launch(run=first, use_cache=options["use_cache"])
        except (ReproduceError, SpecError) as exc:
            raise CommandError(str(exc)) from None
        self.stdout.write(f"run {second.pk} reproduces run {first.pk}: {second.progress_total} units of work")
        follow_run(second, timeout_s=options["timeout"])
        second.refresh_from_db()
        report = moved_scores(first, second)
        self.stdout.write(moved_table(report))
        if options["json"] is not None:
            options["json"].write_text(json.dumps(report.as_json(), indent=2))
            self.stdout.write(f"wrote {options['json']}")
