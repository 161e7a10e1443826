"""python manage.py generate_questions --dataset NAME --generator local [--per-context 20] [--limit N]"""

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from evalplatform.corpus.models import Dataset
from evalplatform.runs.cli import whole_number
from evalplatform.runs.models import ModelEndpoint
from scoring.cdke.questions import DEFAULT_QUESTIONS, questions_generate


class Command(BaseCommand):
    help = "Write draft questions answerable only from the divergent facts (CDK-E step 2), for review."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--dataset", required=True)
        parser.add_argument("--generator", required=True)
        parser.add_argument("--per-context", type=whole_number(1, 100), default=DEFAULT_QUESTIONS)
        parser.add_argument("--limit", type=whole_number(), help="Only the first N contexts without questions.")

    def handle(self, *args: Any, **options: Any) -> None:
        dataset = Dataset.objects.filter(name=options["dataset"]).first()
        generator = ModelEndpoint.objects.filter(name=options["generator"], is_active=True).first()
        if dataset is None or generator is None:
            raise CommandError("unknown dataset or generator endpoint")
        report = questions_generate(
            dataset=dataset, generator=generator, per_context=options["per_context"], limit=options["limit"]
        )
        self.stdout.write(
            f"{dataset.name}: {report.created} draft questions, {report.refused} refused by the checks, "
            f"{report.short} asked for but not written, {len(report.unparseable)} contexts with an unparseable output "
            "(refusals are kept for review on the dataset's page)"
        )
        for key, raw in report.unparseable:
            self.stdout.write(f"  unparseable for {key}: {raw[:200]!r}")
