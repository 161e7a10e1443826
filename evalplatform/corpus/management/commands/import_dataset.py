"""python manage.py import_dataset FILE --format FORMAT --name NAME [--replace | --new-version] [--key-by-line]"""

from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.db import DatabaseError

from evalplatform.corpus.importers import FORMATS
from evalplatform.corpus.models import Dataset
from evalplatform.corpus.records import DatasetImportError
from evalplatform.corpus.selectors import dataset_counts
from evalplatform.corpus.services import dataset_import_file


class Command(BaseCommand):
    help = "Import a dataset file in one transaction; bad input is refused with one line naming record and field."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("file", type=Path, help="The file (or, for dkd-dir, the folder) to import.")
        parser.add_argument("--format", required=True, choices=FORMATS, dest="format")
        parser.add_argument("--name", help="Dataset name (dkd: defaults to the file's own 'name').")
        parser.add_argument("--replace", action="store_true", help="Replace the latest version of the same name.")
        parser.add_argument(
            "--new-version",
            action="store_true",
            help="Import as the next version of an existing name (earlier versions and their runs are kept).",
        )
        parser.add_argument("--project", help="Project whose researchers see the dataset (created if new).")
        parser.add_argument(
            "--key-by-line",
            action="store_true",
            help="qa-jsonl, pairs-jsonl: key records by line (line-N), keeping the file's id as source_id.",
        )
        parser.add_argument(
            "--skip-existing", action="store_true", help="Do nothing (and succeed) if the dataset exists already."
        )

    def handle(self, *args: Any, **options: Any) -> None:
        if options["skip_existing"] and options["name"] and Dataset.objects.filter(name=options["name"]).exists():
            self.stdout.write(f"dataset '{options['name']}' exists already: kept as it is")
            return
        try:
            dataset = dataset_import_file(
                path=options["file"],
                import_format=options["format"],
                name=options["name"],
                replace=options["replace"],
                new_version=options["new_version"],
                project=options["project"],
                key_by_line=options["key_by_line"],
            )
        except DatasetImportError as exc:
            raise CommandError(str(exc)) from None
        except DatabaseError as exc:  # what validation did not foresee: still one line, and nothing written
            reason = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
            raise CommandError(f"{options['file']}: the database refused the import: {reason}") from None
        counts = dataset_counts(dataset)
        self.stdout.write(
            f"imported dataset '{dataset.name}' version {dataset.version} ({dataset.kind}): "
            f"{counts['contexts']} contexts, "
            f"{counts['questions']} questions, {counts['alterations']} alterations, {counts['pairs']} pairs"
        )
