"""python manage.py run_resume RUN_ID [--retry-failed] [--sync] [--no-follow]"""

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from evalplatform.runs.cli import follow_run, run_inline
from evalplatform.runs.launch import run_resume
from evalplatform.runs.models import Run


class Command(BaseCommand):
    help = (
        "Resume a stopped or interrupted run: what it has is kept, what is left is sent to the workers "
        "(--retry-failed also tries its failed answers and scores again)."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("run", type=int)
        parser.add_argument("--retry-failed", action="store_true", help="Also retry the failed units.")
        parser.add_argument("--sync", action="store_true", help="Run inline instead of through the workers.")
        parser.add_argument("--no-follow", action="store_true", help="Return at once instead of showing progress.")
        parser.add_argument("--timeout", type=float, default=24 * 3600, help="Seconds to wait for the workers.")

    def handle(self, *args: Any, **options: Any) -> None:
        run = Run.objects.select_related("dataset").filter(pk=options["run"]).first()
        if run is None:
            raise CommandError(f"no run {options['run']}")
        if run.kind == Run.Kind.SIMILARITY_BENCHMARK:
            raise CommandError(f"run {run.pk} is a similarity benchmark, which has nothing to resume")
        if run.status == Run.Status.DONE and not options["retry_failed"]:
            raise CommandError(f"run {run.pk} is done; give --retry-failed to retry its failed units")
        if options["sync"]:
            run_inline()
        run = run_resume(run=run, retry_failed=options["retry_failed"])
        self.stdout.write(f"run {run.pk} resumed: {run.progress_done}/{run.progress_total} units done")
        if not options["no_follow"]:
            follow_run(run, timeout_s=options["timeout"])
