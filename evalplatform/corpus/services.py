"""Writes to the corpus. Every function here is the only way its rows are written."""

import re
import tempfile
from pathlib import Path
from typing import Any

from django.conf import settings
from django.contrib.auth.models import AnonymousUser, User
from django.core.files.uploadedfile import UploadedFile
from django.db import transaction
from django.db.models import ProtectedError
from django.utils.text import slugify

from evalplatform import strict_json
from evalplatform.audit.services import audit_record
from evalplatform.corpus.importers import FORMATS, parse_file
from evalplatform.corpus.models import Alteration, Context, Dataset, Project, Question, TextPair
from evalplatform.corpus.payload import DatasetPayload
from evalplatform.corpus.records import DatasetImportError
from evalplatform.corpus.selectors import datasets_visible_to
from evalplatform.roles import is_admin

# Formats a single uploaded file can hold (dkd-dir is a folder of two files: import it with the command).
UPLOAD_FORMATS = tuple(f for f in FORMATS if f != "dkd-dir")

# Longest values the columns take; checked before writing so that a long key is a clear import error.
KEY_MAX = Context._meta.get_field("key").max_length or 200
TOPIC_MAX = Context._meta.get_field("topic").max_length or 300
FIELD_MAX = Alteration._meta.get_field("field").max_length or 60
NAME_MAX = Dataset._meta.get_field("name").max_length or 120
PROJECT_MAX = Project._meta.get_field("name").max_length or 120
SOURCE_MAX = Dataset._meta.get_field("source").max_length or 500
LICENCE_MAX = Dataset._meta.get_field("licence").max_length or 300
SLUG = re.compile(r"[-a-zA-Z0-9_]+")


def check_slug(value: str, *, what: str, source: str, limit: int) -> None:
    """A dataset or project name is a URL slug (letters, digits, - and _) of at most ``limit`` characters: pages
    and the API address datasets by name, so any other name would break every page that links to it."""
    if len(value) > limit:
        raise DatasetImportError(source, f"{what} is {len(value)} characters, longer than {limit}")
    if not SLUG.fullmatch(value):
        hint = slugify(re.sub(r"[^\w-]+", "-", value))[:limit]
        suggestion = f" such as '{hint}'" if hint else ""
        raise DatasetImportError(
            source, f"{what} {value[:60]!r} is not a slug: use letters, digits, - and _ only (choose one{suggestion})"
        )


def _check_lengths(payload: DatasetPayload, source: str) -> None:
    def too_long(record: str | None, field: str, value: str, limit: int) -> None:
        if len(value) > limit:
            raise DatasetImportError(
                source, f"is {len(value)} characters, longer than {limit}", record=record, field=field
            )

    too_long(None, "source", payload.source, SOURCE_MAX)
    too_long(None, "licence", payload.licence, LICENCE_MAX)
    for context in payload.contexts:
        too_long(f"context {context.key[:40]}", "id", context.key, KEY_MAX)
        too_long(f"context {context.key}", "topic", context.topic, TOPIC_MAX)
        for alteration in context.alterations:
            too_long(f"context {context.key}", "alterations.field", alteration.field, FIELD_MAX)
        for question in context.questions:
            too_long(f"question {question.key[:40]}", "id", question.key, KEY_MAX)
    for pair in payload.pairs:
        too_long(f"pair {pair.key[:40]}", "id", pair.key, KEY_MAX)


def _check_values(payload: DatasetPayload, source: str) -> None:
    """No NUL character in any string and no non-finite number anywhere (parsers that read JSON have refused them
    already; this holds for payloads built another way too)."""

    def check(record: str | None, value: object) -> None:
        try:
            strict_json.check(value)
        except strict_json.JSONRefused as exc:
            raise DatasetImportError(source, str(exc), record=record) from None

    check(None, [payload.name, payload.source, payload.licence, payload.description])
    for context in payload.contexts:
        label = f"context {context.key[:40]}"
        check(label, [context.key, context.topic, context.text, context.source_text])
        check(label, [[a.field, a.original, a.divergent] for a in context.alterations])
        for question in context.questions:
            label = f"question {question.key[:40]}"
            check(label, [question.key, question.text, question.ground_truth, question.original_answer])
            check(label, question.metadata)
    for pair in payload.pairs:
        check(f"pair {pair.key[:40]}", [pair.key, pair.text_a, pair.text_b, pair.score, pair.metadata])


def _fitting(text: str, limit: int) -> str:
    """A default taken from a path: its end, when it is longer than the column."""
    return text if len(text) <= limit else "..." + text[-(limit - 3) :]


@transaction.atomic
def dataset_import(
    *,
    payload: DatasetPayload,
    name: str,
    import_format: str,
    replace: bool = False,
    new_version: bool = False,
    actor: User | None = None,
    source: str = "",
    extra: dict[str, Any] | None = None,
) -> Dataset:
    """Write a validated payload as one dataset version, in one transaction: all of it or nothing.

    A name that exists already is refused unless ``new_version`` (the data become the name's next version, the
    earlier ones and their runs stay as they are; the project is kept unless ``extra`` names another) or
    ``replace`` (the latest version is deleted and written again under the same number; refused when runs refer
    to it, since they would lose their questions). The name must be a slug; every string must fit its column and
    hold no NUL character, every number be finite: what does not is one DatasetImportError line, before
    anything is written."""
    check_slug(name, what="dataset name", source=source or name[:60], limit=NAME_MAX)
    _check_lengths(payload, source or name)
    _check_values(payload, source or name)
    existing = Dataset.objects.filter(name=name).order_by("-version").first()
    version = 1
    if existing is not None:
        if new_version:
            version = existing.version + 1
            extra = {"project": existing.project, **(extra or {})}
        elif not replace:
            raise DatasetImportError(
                source or name,
                f"a dataset named '{name}' exists already; pass --replace to replace it, or --new-version to "
                f"import it as version {existing.version + 1}",
            )
        else:
            version = existing.version
            try:
                existing.delete()
            except ProtectedError:
                raise DatasetImportError(
                    source or name,
                    f"dataset '{name}' has runs and cannot be replaced; import it as a new version instead",
                ) from None
    dataset = Dataset.objects.create(
        name=name,
        version=version,
        kind=payload.kind,
        licence=payload.licence,
        source=payload.source or _fitting(source, SOURCE_MAX),
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
            "version": version,
            "replaced": existing is not None and not new_version,
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
    new_version: bool = False,
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
    check_slug(dataset_name, what="dataset name", source=str(path), limit=NAME_MAX)
    if project:
        check_slug(project, what="project name", source=str(path), limit=PROJECT_MAX)
    with transaction.atomic():  # a project made for a dataset that is then refused is not kept either
        extra = {"project": project_get_or_create(name=project)} if project else None
        return dataset_import(
            payload=payload,
            name=dataset_name,
            import_format=import_format,
            replace=replace,
            new_version=new_version,
            actor=actor,
            source=str(path),
            extra=extra,
        )


def _safe_file_name(name: str) -> str:
    """The uploaded file's own name, reduced to a plain file name, so that error messages name it."""
    base = Path(name or "upload").name
    return re.sub(r"[^A-Za-z0-9._-]+", "_", base)[:100] or "upload"


def dataset_upload(
    *,
    upload: UploadedFile,
    import_format: str,
    actor: User,
    name: str | None = None,
    project: Project | None = None,
    key_by_line: bool = False,
) -> Dataset:
    """Import an uploaded file as a dataset (a page's or the API's upload), in one transaction.

    The file is validated whole before anything is written (``DatasetImportError`` names the file, the record
    and the field). A name already taken makes the name's next version when the uploader sees its latest
    version, and is refused otherwise; a project is given only by one of its members (or an admin)."""
    label = _safe_file_name(upload.name or "")
    if import_format not in UPLOAD_FORMATS:
        raise DatasetImportError(label, f"format must be one of {', '.join(UPLOAD_FORMATS)}")
    if upload.size is not None and upload.size > settings.MAX_IMPORT_BYTES:
        raise DatasetImportError(label, f"is {upload.size} bytes, more than the limit of {settings.MAX_IMPORT_BYTES}")
    if name is not None:
        check_slug(name, what="dataset name", source=label, limit=NAME_MAX)
    if project is not None and not (is_admin(actor) or project.members.filter(pk=actor.pk).exists()):
        raise DatasetImportError(label, f"you are not a member of project '{project.name}'")
    with tempfile.TemporaryDirectory(prefix="evalplatform-upload-") as folder:
        path = Path(folder) / label
        with path.open("wb") as out:
            for chunk in upload.chunks():
                out.write(chunk)
        try:
            payload = parse_file(path, import_format, limit=settings.MAX_IMPORT_BYTES, key_by_line=key_by_line)
        except DatasetImportError as exc:  # name the uploaded file, not the temporary folder it was written to
            raise DatasetImportError(label, exc.detail, record=exc.record, field=exc.field) from None
    dataset_name = name or payload.name
    if not dataset_name:
        raise DatasetImportError(label, "no dataset name in the file: give a name")
    check_slug(dataset_name, what="dataset name", source=label, limit=NAME_MAX)
    latest = Dataset.objects.filter(name=dataset_name).order_by("-version").first()
    if latest is not None and not datasets_visible_to(actor).filter(pk=latest.pk).exists():
        raise DatasetImportError(label, f"the name '{dataset_name}' is taken by a dataset you cannot see")
    return dataset_import(
        payload=payload,
        name=dataset_name,
        import_format=import_format,
        new_version=True,
        actor=actor,
        source=label,
        extra={"project": project} if project is not None else None,
    )


def project_get_or_create(*, name: str) -> Project:
    project, _ = Project.objects.get_or_create(name=name)
    return project
