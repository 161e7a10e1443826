"""Researcher pages of the corpus: the datasets one sees (the latest version of each name) with the upload form,
and a dataset's contexts with their alterations highlighted against the real text, and its questions with their
status."""

from typing import Any

from django import forms
from django.contrib import messages
from django.core.paginator import Paginator
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_http_methods

from evalplatform.corpus.highlight import highlight
from evalplatform.corpus.models import Context, Project
from evalplatform.corpus.records import DatasetImportError
from evalplatform.corpus.selectors import (
    dataset_counts,
    dataset_get,
    dataset_versions,
    datasets_visible_to,
    latest_versions,
)
from evalplatform.corpus.serializers import question_status_counts
from evalplatform.corpus.services import UPLOAD_FORMATS, dataset_upload
from evalplatform.permissions import page_requires
from evalplatform.roles import is_admin, is_researcher
from scoring.models import GeneratorRefusal

CONTEXTS_PER_PAGE = 10
REFUSALS_SHOWN = 100


FORMAT_HELP = {
    "dkd": "one JSON document with contexts, alterations and questions",
    "qa-jsonl": "one question with its context per line",
    "pairs-jsonl": "one text pair per line",
    "pubmedqa": "PubMedQA's labelled set",
}


class UploadForm(forms.Form):
    file = forms.FileField(help_text="A dataset file in one of the import formats (docs: README, Data formats).")
    format = forms.ChoiceField(choices=[(f, f"{f}: {FORMAT_HELP.get(f, f)}") for f in UPLOAD_FORMATS])
    name = forms.SlugField(
        required=False,
        max_length=120,
        help_text="Leave empty to take the file's own name (dkd). A name you have already becomes its next version.",
    )
    project = forms.ChoiceField(required=False, help_text="Whose researchers see it.")
    key_by_line = forms.BooleanField(required=False, help_text="Key records by line (files whose ids repeat).")

    def __init__(self, *args: Any, user: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        projects = Project.objects.all() if is_admin(user) else Project.objects.filter(members=user)
        field: Any = self.fields["project"]
        field.choices = [("", "none (only you and the admins)")] + [(p.name, p.name) for p in projects]


@page_requires(is_researcher)
@require_http_methods(["GET", "POST"])
def dataset_list(request: HttpRequest) -> HttpResponse:
    """GET: the latest version of every dataset one sees, and the upload form. POST: upload a file (nothing is
    written when it is refused; the form comes back with the importer's one-line reason)."""
    form = UploadForm(request.POST or None, request.FILES or None, user=request.user)
    status = 200
    if request.method == "POST":
        if form.is_valid():
            data = form.cleaned_data
            project = Project.objects.filter(name=data["project"]).first() if data["project"] else None
            try:
                dataset = dataset_upload(
                    upload=data["file"],
                    import_format=data["format"],
                    actor=request.user,  # type: ignore[arg-type]
                    name=data["name"] or None,
                    project=project,
                    key_by_line=data["key_by_line"],
                )
            except DatasetImportError as exc:
                form.add_error("file", str(exc))
            else:
                counts = dataset_counts(dataset)
                messages.success(
                    request,
                    f"Imported {dataset.name} version {dataset.version}: {counts['contexts']} contexts, "
                    f"{counts['questions']} questions, {counts['pairs']} pairs.",
                )
                return redirect("corpus:dataset", name=dataset.name)
        status = 400
    datasets = latest_versions(datasets_visible_to(request.user)).select_related("project").order_by("name")
    rows = [(d, dataset_counts(d)) for d in datasets]
    return render(request, "corpus/dataset_list.html", {"rows": rows, "form": form}, status=status)


def _version(request: HttpRequest) -> int | None:
    raw = request.GET.get("version", "")
    return int(raw) if raw.isdigit() and int(raw) >= 1 else None


@page_requires(is_researcher)
def dataset_detail(request: HttpRequest, name: str) -> HttpResponse:
    dataset = dataset_get(user=request.user, name=name, version=_version(request))
    if dataset is None:
        raise Http404("no such dataset")
    contexts = (
        Context.objects.filter(dataset=dataset).prefetch_related("alterations", "questions").order_by("position", "pk")
    )
    page = Paginator(contexts, CONTEXTS_PER_PAGE).get_page(request.GET.get("page"))
    shown = []
    for context in page.object_list:
        alterations = list(context.alterations.all())
        shown.append(
            {
                "context": context,
                "text": highlight(context.text, (a.divergent for a in alterations), "divergent"),
                "source": highlight(context.source_text, (a.original for a in alterations), "original"),
                "alterations": alterations,
                "questions": sorted(context.questions.all(), key=lambda q: (q.position, q.pk)),
            }
        )
    return render(
        request,
        "corpus/dataset_detail.html",
        {
            "dataset": dataset,
            "counts": dataset_counts(dataset),
            "status_counts": question_status_counts(dataset),
            "page": page,
            "contexts": shown,
            "export_formats": ["pairs-jsonl"] if dataset.kind == "pairs" else ["dkd", "qa-jsonl"],
            "refusals": GeneratorRefusal.objects.filter(dataset=dataset)[:REFUSALS_SHOWN],
            "versions": dataset_versions(user=request.user, name=dataset.name),
        },
    )
