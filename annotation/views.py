"""Server-rendered pages of the annotation app: thin, every read through a selector, every write through
a service. CSRF protects every form (Django's middleware; each template carries the token)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.contrib import messages
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_http_methods, require_POST

from annotation import selectors, services
from annotation.judge_agreement import judge_flags
from annotation.models import Consensus, ItemState, TauLabel
from annotation.permissions import can_annotate, can_use_annotation, is_reviewer, reviewer_sees_item
from annotation.presentation import consensus_reasons, mark_terms, review_position, word_diff
from annotation.reports import calibration_report, tau_report
from annotation.services.queue import AnnotationError
from evalplatform import strict_json
from evalplatform.permissions import page_requires
from scoring.cdke.answer import context_shown
from scoring.models import ErrorTypeJudgement

AUDIT_PAGE = 200


def _user(request: HttpRequest) -> Any:
    return request.user


def _refusal(submit: Callable[[], object], *refusals: type[Exception]) -> str:
    """Run a submission; "" when it went through, else why it was refused (the form is shown again with it)."""
    try:
        submit()
    except refusals as exc:
        return str(exc)
    return ""


def _form(request: HttpRequest, template: str, context: dict[str, Any], error: str) -> HttpResponse:
    """A form page, with the refusal of the last submission (400) and the user's input kept."""
    return render(request, template, context | {"error": error}, status=400 if error else 200)


@page_requires(can_use_annotation)
def dashboard(request: HttpRequest) -> HttpResponse:
    user = _user(request)
    context = {
        "summary": selectors.queue_summary(user=user),
        "reviews": selectors.my_review_assignments(user=user)[:20],
        "tau_assignments": selectors.my_tau_assignments(user=user)[:20],
        "consensus_items": selectors.consensus_list(user=user)[:20],
        "annotator": can_annotate(user),
        "reviewer": is_reviewer(user),
    }
    return render(request, "annotation/dashboard.html", context)


@require_POST
@page_requires(can_annotate)
def review_next(request: HttpRequest) -> HttpResponse:
    assignment = services.review_next(annotator=_user(request))
    if assignment is None:
        messages.info(request, "No question is waiting for you.")
        return redirect("annotation:dashboard")
    return redirect("annotation:review", pk=assignment.pk)


@require_http_methods(["GET", "POST"])
@page_requires(can_annotate)
def review(request: HttpRequest, pk: int) -> HttpResponse:
    assignment = selectors.review_assignment_get(user=_user(request), pk=pk)
    if assignment is None:
        raise Http404("no such assignment of yours")
    error = ""
    if request.method == "POST":
        error = _refusal(
            lambda: services.review_submit(
                assignment=assignment,
                actor=_user(request),
                context_coherent=request.POST.get("context_coherent") == "yes",
                question_valid=request.POST.get("question_valid") == "yes",
                ground_truth=request.POST.get("ground_truth", ""),
                comment=request.POST.get("comment", ""),
            ),
            AnnotationError,
        )
        if not error:
            following = services.review_next(annotator=_user(request))
            if following is None:
                messages.success(request, "Review submitted. That was the last question waiting for you.")
                return redirect("annotation:dashboard")
            messages.success(request, "Review submitted: here is the next question.")
            return redirect("annotation:review", pk=following.pk)
    question = assignment.item.question
    context = {
        "assignment": assignment,
        "question": question,
        "context_html": selectors.highlight_divergent(question.context.text, list(question.context.alterations.all())),
        "own_review": selectors.own_review(assignment),
        "position": review_position(assignment),
        "posted": request.POST if error else {},
    }
    return _form(request, "annotation/review_form.html", context, error)


@page_requires(can_use_annotation)
def consensus_list(request: HttpRequest) -> HttpResponse:
    items = selectors.consensus_list(user=_user(request))[:200]
    return render(request, "annotation/consensus_list.html", {"items": items})


@require_http_methods(["GET", "POST"])
@page_requires(can_use_annotation)
def consensus_detail(request: HttpRequest, pk: int) -> HttpResponse:
    try:
        view = selectors.consensus_get(user=_user(request), item_pk=pk)
    except selectors.NotOpenYet as exc:
        raise PermissionDenied(str(exc)) from exc
    if view is None:
        raise Http404("no such item")
    error = ""
    if request.method == "POST" and request.POST.get("action") == "reopen":
        error = _refusal(
            lambda: services.consensus_reopen(
                item=view.item, actor=_user(request), reason=request.POST.get("reason", "")
            ),
            AnnotationError,
        )
        if not error:
            messages.success(request, "Decision reopened.")
            return redirect("annotation:consensus", pk=pk)
    elif request.method == "POST":
        decision = request.POST.get("decision", "")
        ground_truth = request.POST.get("ground_truth", "")
        adopt = request.POST.get("adopt", "")
        if adopt.isdigit() and int(adopt) < len(view.reviews):  # "Adopt this ground truth": validated with it
            decision, ground_truth = Consensus.Decision.VALIDATED, view.reviews[int(adopt)].ground_truth
        error = _refusal(
            lambda: services.consensus_decide(
                item=view.item, actor=_user(request), decision=decision, ground_truth=ground_truth
            ),
            AnnotationError,
        )
        if not error:
            messages.success(request, "Decision recorded.")
            return redirect("annotation:consensus", pk=pk)
    question = view.item.question
    truths = [r.ground_truth for r in view.reviews]
    context = {
        "view": view,
        "question": question,
        "context_html": selectors.highlight_divergent(question.context.text, list(question.context.alterations.all())),
        "decisions": Consensus.Decision.choices,
        "decided": view.item.state == ItemState.DECIDED,
        "can_reopen": reviewer_sees_item(_user(request), view.item),
        "reasons": consensus_reasons(view.reviews) if view.item.state == "needs_decision" else [],
        "diff": word_diff(truths[0], truths[1]) if len(truths) >= 2 else None,
        "posted": request.POST if error else {},
    }
    return _form(request, "annotation/consensus_detail.html", context, error)


@require_POST
@page_requires(can_annotate)
def tau_next(request: HttpRequest) -> HttpResponse:
    assignment = services.tau_next(annotator=_user(request))
    if assignment is None:
        messages.info(request, "No TAU item is waiting for you.")
        return redirect("annotation:dashboard")
    return redirect("annotation:tau", pk=assignment.pk)


@require_http_methods(["GET", "POST"])
@page_requires(can_annotate)
def tau(request: HttpRequest, pk: int) -> HttpResponse:
    assignment = selectors.tau_assignment_get(user=_user(request), pk=pk)
    if assignment is None:
        raise Http404("no such assignment of yours")
    error = ""
    if request.method == "POST":

        def submit() -> None:
            payload = strict_json.loads(request.POST.get("label", "{}"))
            services.tau_label_submit(
                assignment=assignment,
                actor=_user(request),
                aligned=payload.get("aligned", []),
                answer_errors=payload.get("answer_errors", {}),
                gold_errors=payload.get("gold_errors", {}),
                comment=request.POST.get("comment", ""),
            )

        error = _refusal(submit, AnnotationError, ValueError, TypeError, AttributeError)
        if not error:
            following = services.tau_next(annotator=_user(request))
            if following is None:
                messages.success(request, "Alignment submitted. That was the last TAU item waiting for you.")
                return redirect("annotation:dashboard")
            messages.success(request, "Alignment submitted: here is the next item.")
            return redirect("annotation:tau", pk=following.pk)
    item = assignment.item
    generation = item.generation
    texts = None
    if generation is not None:
        texts = {
            "question": generation.question.text,
            "answer": mark_terms(generation.text, _entities(item.answer), "answer-term"),
            "gold": mark_terms(generation.question.ground_truth, _entities(item.gold), "gold-term"),
        }
    context = {
        "assignment": assignment,
        "answer_rows": list(enumerate(item.answer)),
        "gold_rows": list(enumerate(item.gold)),
        "own_label": selectors.own_tau_label(assignment),
        "error_types": TauLabel.ErrorType.choices,
        "texts": texts,
        "posted_label": request.POST.get("label", "") if error else "",
    }
    return _form(request, "annotation/tau_form.html", context, error)


def _entities(triplets: list[list[str]]) -> list[str]:
    """The heads and tails of triplets: what is marked in the texts they were extracted from."""
    return [part for t in triplets for part in (t[0], t[2])]


@page_requires(is_reviewer)
def tau_agreement(request: HttpRequest) -> HttpResponse:
    report = tau_report(selectors.tau_items_complete_visible_to(_user(request)))
    return render(request, "annotation/tau_report.html", {"report": report})


@page_requires(can_annotate)
def calibration_next(request: HttpRequest) -> HttpResponse:
    item = selectors.calibration_next(user=_user(request))
    if item is None:
        messages.info(request, "No generation is waiting for your calibration label.")
        return redirect("annotation:dashboard")
    return redirect("annotation:calibration", pk=item.pk)


@require_http_methods(["GET", "POST"])
@page_requires(can_annotate)
def calibration(request: HttpRequest, pk: int) -> HttpResponse:
    item = selectors.calibration_item_get(user=_user(request), pk=pk)
    if item is None:
        raise Http404("no such calibration item")
    error = ""
    if request.method == "POST":
        error = _refusal(
            lambda: services.calibration_label_submit(
                item=item,
                annotator=_user(request),
                lav=int(request.POST.get("lav", "")),
                acc=float(request.POST.get("acc", "")),
                cm=float(request.POST.get("cm", "")),
                error_type=request.POST.get("error_type", ""),
            ),
            AnnotationError,
            ValueError,
        )
        if not error:
            messages.success(request, "Label saved.")
            return redirect("annotation:calibration-next")
    generation = item.generation
    context = {
        "item": item,
        "generation": generation,
        "shown_context": context_shown(generation.question, generation.condition),
        "scale": ["0", "0.25", "0.5", "0.75", "1"],
        "error_types": ErrorTypeJudgement.Label.choices,
    }
    return _form(request, "annotation/calibration_form.html", context, error)


@page_requires(is_reviewer)
def calibration_run_report(request: HttpRequest, run_pk: int) -> HttpResponse:
    run = selectors.calibration_run_get(user=_user(request), pk=run_pk)
    if run is None:
        raise Http404("no such run")
    rows = calibration_report(run=run)
    flags = judge_flags(run)  # judges below the run's judge_min_agreement: flagged on every table of their scores
    flagged = [{"row": r, "flag": flags.get(r.evaluator)} for r in rows]
    return render(request, "annotation/calibration_report.html", {"run": run, "rows": rows, "flagged": flagged})


@page_requires(is_reviewer)
def audit_log(request: HttpRequest) -> HttpResponse:
    events = selectors.audit_events_visible_to(_user(request))[:AUDIT_PAGE]
    return render(request, "annotation/audit_log.html", {"events": events})
