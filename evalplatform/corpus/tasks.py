"""Thin Celery tasks of the corpus: they take plain arguments and call a service."""

from pathlib import Path

from celery import shared_task

from evalplatform.corpus.services import dataset_import_file


@shared_task(name="corpus.import_dataset_file", acks_late=True)
def import_dataset_file(
    path: str, import_format: str, name: str, replace: bool = False, key_by_line: bool = False
) -> int:
    """Import a file in the background; idempotent with ``replace`` (the same name ends with the same rows)."""
    return dataset_import_file(
        path=Path(path), import_format=import_format, name=name, replace=replace, key_by_line=key_by_line
    ).pk
