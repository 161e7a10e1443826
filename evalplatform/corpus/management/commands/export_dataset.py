"""python manage.py export_dataset NAME --format FORMAT --output FILE"""

import sys
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from evalplatform.corpus.exporters import EXPORT_FORMATS, export_dataset
from evalplatform.corpus.models import Dataset
from evalplatform.corpus.services import dataset_export_record


class Command(BaseCommand):
    help = "Export a dataset in an import format; importing the output gives the same dataset."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("name")
        parser.add_argument("--format", required=True, choices=EXPORT_FORMATS, dest="format")
        parser.add_argument("--output", type=Path, help="File to write; '-' or absent: standard output.")

    def handle(self, *args: Any, **options: Any) -> None:
        dataset = Dataset.objects.filter(name=options["name"]).first()
        if dataset is None:
            raise CommandError(f"no dataset named '{options['name']}'")
        try:
            chunks = export_dataset(dataset, options["format"])
        except ValueError as exc:
            raise CommandError(str(exc)) from None
        dataset_export_record(dataset=dataset, fmt=options["format"], actor=None)
        output = None if options["output"] is None else Path(options["output"])
        if output is None or str(output) == "-":
            for chunk in chunks:
                sys.stdout.write(chunk)
            return
        tmp = output.with_name(output.name + ".partial")
        with tmp.open("w", encoding="utf-8") as handle:
            for chunk in chunks:
                handle.write(chunk)
        tmp.replace(output)
        self.stderr.write(f"wrote {output}")
