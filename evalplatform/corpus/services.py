"""Writes to the corpus. Every function here is the only way its rows are written."""

from pathlib import Path
from typing import Any

from django.conf import settings
from django.contrib.auth.models import AnonymousUser, User
from django.db import transaction
from django.db.models import ProtectedError

from evalplatform.audit.services import audit_record
from evalplatform.corpus.importers import parse_file
from evalplatform.corpus.models import Alteration, Context, Dataset, Project, Question, TextPair
from evalplatform.corpus.payload import DatasetPayload
from evalplatform.corpus.records import DatasetImportError

# Longest values the columns take; checked before writing so that a long key is a clear import error.
KEY_MAX = Context._meta.get_field("key").max_length or 200
TOPIC_MAX = Context._meta.get_field("topic").max_length or 300
FIELD_MAX = Alteration._meta.get_field("field").max_length or 60


def _check_lengths(payload: DatasetPayload, source: str) -> None:
    def too_long(record: str, field: str, value: str, limit: int) -> None:
        if len(value) > limit:
            raise DatasetImportError(
                source, f"is {len(value)} characters, longer than {limit}", record=record, field=field
            )

    for context in payload.contexts:
        too_long(f"context {context.key[:40]}", "id", context.key, KEY_MAX)
        too_long(f"context {context.key}", "topic", context.topic, TOPIC_MAX)
        for alteration in context.alterations:
            too_long(f"context {context.key}", "alterations.field", alteration.field, FIELD_MAX)
        for question in context.questions:
            too_long(f"question {question.key[:40]}", "id", question.key, KEY_MAX)
    for pair in payload.pairs:
        too_long(f"pair {pair.key[:40]}", "id", pair.key, KEY_MAX)


@transaction.atomic
def dataset_import(
    *,
    payload: DatasetPayload,
    name: str,
    import_format: str,
    replace: bool = False,
    actor: User | None = None,
    source: str = "",
    extra: dict[str, Any] | None = None,
) -> Dataset:
    """Write a validated payload as one dataset, in one transaction: all of it or nothing.

    An existing dataset of the same name is refused unless ``replace`` is set; a dataset that runs
    refer to cannot be replaced (its runs would lose their questions)."""
    _check_lengths(payload, source or name)
    existing = Dataset.objects.filter(name=name).first()
    if existing is not None:
        if not replace:
            raise DatasetImportError(
                source or name, f"a dataset named '{name}' exists already; pass --replace to replace it"
            )
        try:
            existing.delete()
        except ProtectedError:
            raise DatasetImportError(
                source or name, f"dataset '{name}' has runs and cannot be replaced; import under another name"
            ) from None
    dataset = Dataset.objects.create(
        name=name,
        kind=payload.kind,
        licence=payload.licence,
        source=payload.source or source,
        description=payload.description,
        import_format=import_format,
        created_by=actor if actor is not None and actor.is_authenticated else None,
        **(extra or {}),
    )
    contexts = Context.objects.bulk_create(
        [
            Context(dataset=dataset, key=c.key, position=i, topic=c.topic, text=c.text, source_text=c.source_text)
            for i, c in enumerate(payload.contexts)
        ]
    )
    alterations = []
    questions = []
    for context, data in zip(contexts, payload.contexts, strict=True):
        alterations += [
            Alteration(context=context, position=i, field=a.field, original=a.original, divergent=a.divergent)
            for i, a in enumerate(data.alterations)
        ]
        questions += [
            Question(
                dataset=dataset,
                context=context,
                key=q.key,
                position=i,
                text=q.text,
                ground_truth=q.ground_truth,
                original_answer=q.original_answer,
                metadata=q.metadata,
            )
            for i, q in enumerate(data.questions)
        ]
    Alteration.objects.bulk_create(alterations, batch_size=2000)
    Question.objects.bulk_create(questions, batch_size=2000)
    TextPair.objects.bulk_create(
        [
            TextPair(
                dataset=dataset,
                key=p.key,
                position=i,
                text_a=p.text_a,
                text_b=p.text_b,
                label=p.label,
                score=p.score,
                metadata=p.metadata,
            )
            for i, p in enumerate(payload.pairs)
        ],
        batch_size=2000,
    )
    audit_record(
        actor=actor,
        action="dataset.import",
        obj=dataset,
        payload={
            "format": import_format,
            "source": dataset.source,
            "replaced": existing is not None,
            "contexts": len(contexts),
            "questions": len(questions),
            "pairs": len(payload.pairs),
        },
        dataset=dataset,
    )
    return dataset


@transaction.atomic
def dataset_export_record(*, dataset: Dataset, fmt: str, actor: User | AnonymousUser | None) -> None:
    """Record that a dataset left the platform (who, in which format)."""
    audit_record(actor=actor, action="dataset.export", obj=dataset, payload={"format": fmt}, dataset=dataset)


def dataset_import_file(
    *,
    path: Path,
    import_format: str,
    name: str | None = None,
    replace: bool = False,
    actor: User | None = None,
    project: str | None = None,
    key_by_line: bool = False,
) -> Dataset:
    """Parse and validate a file, then write it with :func:`dataset_import`. Nothing is written on error.
    ``key_by_line`` keys a JSONL file's records by line, for files whose ids repeat across distinct rows."""
    payload = parse_file(path, import_format, limit=settings.MAX_IMPORT_BYTES, key_by_line=key_by_line)
    dataset_name = name or payload.name
    if not dataset_name:
        raise DatasetImportError(str(path), "no dataset name: give --name")
    extra = {"project": project_get_or_create(name=project)} if project else None
    return dataset_import(
        payload=payload,
        name=dataset_name,
        import_format=import_format,
        replace=replace,
        actor=actor,
        source=str(path),
        extra=extra,
    )


def project_get_or_create(*, name: str) -> Project:
    project, _ = Project.objects.get_or_create(name=name)
    return project
