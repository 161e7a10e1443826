"""python manage.py run_stop RUN_ID [--reason TEXT]"""

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from evalplatform.runs.models import Run
from evalplatform.runs.services import run_stop


class Command(BaseCommand):
    help = "Stop an active run (cancelled); what it has is kept and run_resume continues it."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("run", type=int)
        parser.add_argument("--reason", default="stopped from the command line")

    def handle(self, *args: Any, **options: Any) -> None:
        if not Run.objects.filter(pk=options["run"]).exists():
            raise CommandError(f"no run {options['run']}")
        if not run_stop(run_id=options["run"], status=Run.Status.CANCELLED, reason=options["reason"]):
            raise CommandError(f"run {options['run']} is not queued or running")
        self.stdout.write(f"run {options['run']} cancelled: {options['reason']}")
