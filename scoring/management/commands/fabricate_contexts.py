"""python manage.py fabricate_contexts --from SOURCE --into NEW --generator local [--alterations 5] [--limit N]"""

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from evalplatform.corpus.models import Dataset
from evalplatform.corpus.records import DatasetImportError
from evalplatform.runs.cli import whole_number
from evalplatform.runs.models import ModelEndpoint
from scoring.cdke.fabricate import DEFAULT_ALTERATIONS, contexts_fabricate


class Command(BaseCommand):
    help = "Rewrite a dataset's real texts into divergent contexts with a generator model (CDK-E step 1)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--from", dest="source", required=True)
        parser.add_argument("--into", required=True)
        parser.add_argument("--generator", required=True)
        parser.add_argument("--alterations", type=whole_number(1, 100), default=DEFAULT_ALTERATIONS)
        parser.add_argument("--limit", type=whole_number())

    def handle(self, *args: Any, **options: Any) -> None:
        source = Dataset.objects.filter(name=options["source"]).first()
        generator = ModelEndpoint.objects.filter(name=options["generator"], is_active=True).first()
        if source is None or generator is None:
            raise CommandError("unknown dataset or generator endpoint")
        try:
            target, report = contexts_fabricate(
                source=source,
                target_name=options["into"],
                generator=generator,
                n_alterations=options["alterations"],
                limit=options["limit"],
            )
        except DatasetImportError as exc:
            raise CommandError(str(exc)) from None
        self.stdout.write(
            f"{target.name}: {report.created} contexts fabricated, {len(report.unparseable)} refused "
            "(unparseable, or not bearing out their alterations, after one repair; kept for review on its page)"
        )
        for key, raw in report.unparseable:
            self.stdout.write(f"  refused for {key}: {raw[:200]!r}")
