"""Researcher pages of the corpus: the datasets one sees, and a dataset's contexts with their alterations
highlighted against the real text, and its questions with their status."""

from collections.abc import Iterable

from django.core.paginator import Paginator
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe

from annotation.permissions import page_requires
from evalplatform.corpus.models import Context
from evalplatform.corpus.selectors import dataset_counts, datasets_visible_to
from evalplatform.corpus.serializers import question_status_counts
from evalplatform.roles import is_researcher

CONTEXTS_PER_PAGE = 10


def highlight(text: str, phrases: Iterable[str], css_class: str) -> SafeString:
    """``text`` HTML-escaped, with every occurrence of each phrase wrapped in ``<mark class=css_class>``;
    the longest phrase wins where two overlap, and nothing unescaped reaches the page."""
    spans: list[tuple[int, int]] = []
    for phrase in sorted({p for p in phrases if p.strip()}, key=len, reverse=True):
        start = text.find(phrase)
        while start != -1:
            end = start + len(phrase)
            if all(end <= s or start >= e for s, e in spans):
                spans.append((start, end))
            start = text.find(phrase, end)
    out: list[str] = []
    position = 0
    for start, end in sorted(spans):
        out.append(escape(text[position:start]))
        out.append(f'<mark class="{escape(css_class)}">{escape(text[start:end])}</mark>')
        position = end
    out.append(escape(text[position:]))
    return mark_safe("".join(out))  # noqa: S308 (every piece of text above went through escape())


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
        },
    )
