"""Researcher pages of the corpus: the datasets one sees, and a dataset's contexts with their alterations
highlighted against the real text, and its questions with their status."""

from django.core.paginator import Paginator
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render

from evalplatform.corpus.highlight import highlight
from evalplatform.corpus.models import Context
from evalplatform.corpus.selectors import dataset_counts, datasets_visible_to
from evalplatform.corpus.serializers import question_status_counts
from evalplatform.permissions import page_requires
from evalplatform.roles import is_researcher
from scoring.models import GeneratorRefusal

CONTEXTS_PER_PAGE = 10
REFUSALS_SHOWN = 100


@page_requires(is_researcher)
def dataset_list(request: HttpRequest) -> HttpResponse:
    datasets = datasets_visible_to(request.user).select_related("project").order_by("name")
    rows = [(d, dataset_counts(d)) for d in datasets]
    return render(request, "corpus/dataset_list.html", {"rows": rows})


@page_requires(is_researcher)
def dataset_detail(request: HttpRequest, name: str) -> HttpResponse:
    dataset = datasets_visible_to(request.user).filter(name=name).first()
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
        },
    )
