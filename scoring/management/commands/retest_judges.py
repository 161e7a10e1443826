"""python manage.py retest_judges RUN_ID --sample N [--seed S] [--sync] [--json FILE]"""

import json
import time
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from evalplatform.runs.cli import finite_number, run_inline, whole_number
from evalplatform.runs.fingerprint import fingerprint_lines, run_fingerprint
from evalplatform.runs.models import Run
from scoring.cdke.retest import MAX_RETEST_SAMPLE, retest_rows, retest_run_inline, retest_table, retest_units
from scoring.models import RetestBatch
from scoring.services.launches import LaunchError, retest_launch

POLL_S = 1.0


class Command(BaseCommand):
    help = (
        "Judge a sample of a finished CDK-E run's answers a second time, the response cache off, and print each "
        "judge's agreement with itself (Cohen's kappa for LAV, ICC(2,1) for Acc and Cm)."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("run_id", type=whole_number())
        parser.add_argument("--sample", type=whole_number(1, MAX_RETEST_SAMPLE), default=50, help="Answers to retest.")
        parser.add_argument("--seed", type=whole_number(0), default=0, help="Seed of the sample's draw.")
        parser.add_argument("--sync", action="store_true", help="Run inline instead of through the workers.")
        parser.add_argument("--json", type=Path, help="Write the agreement rows as JSON to this file.")
        parser.add_argument(
            "--timeout", type=finite_number(), default=24 * 3600, help="Seconds to wait for the workers."
        )

    def handle(self, *args: Any, **options: Any) -> None:
        run = Run.objects.select_related("dataset").filter(pk=options["run_id"]).first()
        if run is None:
            raise CommandError(f"no run {options['run_id']}")
        if options["sync"]:
            run_inline()
        try:
            batch = retest_launch(run=run, sample_size=options["sample"], seed=options["seed"], actor=None)
        except LaunchError as exc:
            raise CommandError(f"{exc.field}: {exc}") from None
        units = len(batch.generations) * len(batch.evaluators)
        self.stdout.write(
            f"retest {batch.pk} of run {run.pk}: {len(batch.generations)} answers x {len(batch.evaluators)} "
            f"evaluators ({', '.join(batch.metrics)}), response cache off"
        )
        if options["sync"]:
            retest_run_inline(batch)  # what the eager tasks left (none, unless a unit failed)
        self.follow(batch, units, options["timeout"])
        batch.refresh_from_db()
        for line in fingerprint_lines(run_fingerprint(run)):
            self.stdout.write(f"# {line}")
        rows = retest_rows(batch)
        self.stdout.write(retest_table(rows))
        self.stdout.write(f"cost ${batch.cost_usd:.6f}")
        if options["json"] is not None:
            options["json"].write_text(json.dumps([r.as_json() for r in rows], indent=2))
            self.stdout.write(f"wrote {options['json']}")

    def follow(self, batch: RetestBatch, units: int, timeout_s: float) -> None:
        deadline = time.monotonic() + timeout_s
        while (left := len(retest_units(batch))) and time.monotonic() < deadline:
            self.stdout.write(f"\r{units - left}/{units} units", ending="")
            self.stdout.flush()
            time.sleep(POLL_S)
        self.stdout.write(f"\r{units - len(retest_units(batch))}/{units} units")
