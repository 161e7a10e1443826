"""python manage.py list_datasets: what is loaded, with counts."""

from typing import Any

from django.core.management.base import BaseCommand

from evalplatform.corpus.selectors import dataset_list_with_counts


class Command(BaseCommand):
    help = "List the datasets with their counts of contexts, questions and pairs."

    def handle(self, *args: Any, **options: Any) -> None:
        datasets = dataset_list_with_counts()
        if not datasets:
            self.stdout.write("no datasets")
        for row in datasets:
            d = row.dataset
            self.stdout.write(
                f"{d.name:30} {d.kind:6} contexts={row.n_contexts:<5} questions={row.n_questions:<6} "
                f"pairs={row.n_pairs:<6} licence={d.licence or '-'}"
            )
