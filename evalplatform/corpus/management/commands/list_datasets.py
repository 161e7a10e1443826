"""python manage.py list_datasets: what is loaded, with counts."""

from typing import Any

from django.core.management.base import BaseCommand

from evalplatform.corpus.models import Dataset
from evalplatform.corpus.selectors import datasets_with_counts


class Command(BaseCommand):
    help = "List the datasets with their counts of contexts, questions and pairs."

    def handle(self, *args: Any, **options: Any) -> None:
        datasets = datasets_with_counts(Dataset.objects.all())  # the operator's command: every dataset
        if not datasets:
            self.stdout.write("no datasets")
        for row in datasets:
            d = row.dataset
            self.stdout.write(
                f"{d.name:30} {d.kind:6} contexts={row.n_contexts:<5} questions={row.n_questions:<6} "
                f"pairs={row.n_pairs:<6} licence={d.licence or '-'}"
            )
