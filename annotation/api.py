"""The annotation API under /api/annotation/: the queue, next item, my assignments, submissions and the
consensus for reviewers, through the same blind selectors and services as the pages."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any, TypeVar

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import serializers, status
from rest_framework.exceptions import APIException, NotFound, PermissionDenied, ValidationError
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from annotation import api_schema, selectors, services
from annotation.models import Consensus, ReviewAssignment, TauAssignment, TauLabel
from annotation.permissions import IsAnnotator, UsesAnnotation
from annotation.services.queue import AnnotationError

AssignmentT = TypeVar("AssignmentT", ReviewAssignment, TauAssignment)
ResultT = TypeVar("ResultT")


class ReviewSubmitSerializer(serializers.Serializer):
    context_coherent = serializers.BooleanField()
    question_valid = serializers.BooleanField()
    ground_truth = serializers.CharField(allow_blank=True, default="")
    comment = serializers.CharField(allow_blank=True, default="")


class TauSubmitSerializer(serializers.Serializer):
    aligned = serializers.ListField(
        child=serializers.ListField(child=serializers.IntegerField(), min_length=2, max_length=2)
    )
    answer_errors = serializers.DictField(child=serializers.CharField(), default=dict)
    gold_errors = serializers.DictField(child=serializers.CharField(), default=dict)
    comment = serializers.CharField(allow_blank=True, default="")


class DecideSerializer(serializers.Serializer):
    decision = serializers.ChoiceField(choices=Consensus.Decision.choices)
    ground_truth = serializers.CharField(allow_blank=True, default="")


class ReopenSerializer(serializers.Serializer):
    reason = serializers.CharField(max_length=2000)


def _review_assignment_data(assignment: ReviewAssignment) -> dict[str, Any]:
    question = assignment.item.question
    own = selectors.own_review(assignment)
    return {
        "id": assignment.pk,
        "kind": "review",
        "item": assignment.item_id,
        "status": assignment.status,
        "lease_expires_at": assignment.lease_expires_at,
        "question": {"id": question.pk, "key": question.key, "text": question.text},
        "context": question.context.text,
        "alterations": [
            {"field": a.field, "original": a.original, "divergent": a.divergent}
            for a in question.context.alterations.all()
        ],
        "review": api_schema.ReviewOut(own).data if own else None,
    }


def _tau_assignment_data(assignment: TauAssignment) -> dict[str, Any]:
    own = selectors.own_tau_label(assignment)
    return {
        "id": assignment.pk,
        "kind": "tau",
        "item": assignment.item_id,
        "status": assignment.status,
        "lease_expires_at": assignment.lease_expires_at,
        "answer": assignment.item.answer,
        "gold": assignment.item.gold,
        "label": _tau_label_data(own) if own else None,
    }


def _tau_label_data(label: TauLabel) -> dict[str, Any]:
    return {"aligned": label.aligned, "answer_errors": label.answer_errors, "gold_errors": label.gold_errors}


def _submit(
    request: Request,
    serializer_class: type[serializers.Serializer],
    submit: Callable[..., ResultT],
    refuse: Callable[[str], APIException] = lambda message: ValidationError({"detail": message}),
) -> ResultT:
    """Validate the request body with ``serializer_class``, then call the service with its fields; a refusal of
    the service (AnnotationError) becomes ``refuse(message)`` (400 by default)."""
    data = serializer_class(data=request.data)
    data.is_valid(raise_exception=True)
    try:
        return submit(actor=request.user, **data.validated_data)
    except AnnotationError as exc:
        raise refuse(str(exc)) from exc


def _own(assignment: AssignmentT | None) -> AssignmentT:
    """The caller's own assignment; 404 for anybody else's, exactly as for one that does not exist."""
    if assignment is None:
        raise NotFound("no such assignment of yours")
    return assignment


class QueueView(APIView):
    """What is waiting for you: review, TAU and calibration items available to you, what you submitted, and the
    assignment you hold now."""

    permission_classes = [IsAnnotator]

    @extend_schema(responses={200: api_schema.QueueSummaryOut})
    def get(self, request: Request) -> Response:
        s = selectors.queue_summary(user=request.user)
        return Response(
            {
                "review": {
                    "available": s.review_available,
                    "submitted": s.review_submitted,
                    "current": s.review_current.pk if s.review_current else None,
                },
                "tau": {
                    "available": s.tau_available,
                    "submitted": s.tau_submitted,
                    "current": s.tau_current.pk if s.tau_current else None,
                },
                "calibration": {"available": s.calibration_available, "submitted": s.calibration_submitted},
            }
        )


class NextView(APIView):
    """POST: claim the next review or TAU item (204 when nothing is waiting for you)."""

    permission_classes = [IsAnnotator]

    @extend_schema(
        request=None,
        parameters=[OpenApiParameter("kind", OpenApiTypes.STR, OpenApiParameter.PATH, enum=["review", "tau"])],
        responses={
            200: api_schema.NextAssignmentOut,
            204: OpenApiResponse(description="Nothing is waiting for you."),
            404: OpenApiResponse(description="kind is neither review nor tau."),
        },
    )
    def post(self, request: Request, kind: str) -> Response:
        if kind not in ("review", "tau"):
            raise NotFound("kind is review or tau")
        if kind == "review":
            review = services.review_next(annotator=request.user)  # type: ignore[arg-type]
            return Response(_review_assignment_data(review)) if review else Response(status=status.HTTP_204_NO_CONTENT)
        tau = services.tau_next(annotator=request.user)  # type: ignore[arg-type]
        return Response(_tau_assignment_data(tau)) if tau else Response(status=status.HTTP_204_NO_CONTENT)


class MyAssignmentsView(APIView):
    """Your review and TAU assignments (the latest 200 of each), with their status."""

    permission_classes = [IsAnnotator]

    @extend_schema(responses={200: api_schema.MyAssignmentsOut})
    def get(self, request: Request) -> Response:
        reviews = selectors.my_review_assignments(user=request.user)[:200]
        taus = selectors.my_tau_assignments(user=request.user)[:200]
        rows = [{"id": a.pk, "kind": "review", "item": a.item_id, "status": a.status} for a in reviews]
        rows += [{"id": a.pk, "kind": "tau", "item": a.item_id, "status": a.status} for a in taus]
        return Response({"results": rows})


class ReviewAssignmentView(APIView):
    """GET one of your review assignments (with your own review once submitted); nobody else's."""

    permission_classes = [IsAnnotator]

    @extend_schema(responses={200: api_schema.ReviewAssignmentOut})
    def get(self, request: Request, pk: int) -> Response:
        assignment = _own(selectors.review_assignment_get(user=request.user, pk=pk))
        return Response(_review_assignment_data(assignment))


class ReviewSubmitView(APIView):
    """Submit your review of a question: context coherent, question valid, your ground truth (needed when valid).
    The second review of an item triggers the automatic consensus."""

    permission_classes = [IsAnnotator]

    @extend_schema(request=ReviewSubmitSerializer, responses={201: api_schema.ReviewOut, 400: OpenApiTypes.OBJECT})
    def post(self, request: Request, pk: int) -> Response:
        assignment = _own(selectors.review_assignment_get(user=request.user, pk=pk))
        review = _submit(request, ReviewSubmitSerializer, partial(services.review_submit, assignment=assignment))
        return Response(api_schema.ReviewOut(review).data, status=status.HTTP_201_CREATED)


class TauAssignmentView(APIView):
    """One of your TAU assignments: the answer and gold triplets to align (and your label once submitted)."""

    permission_classes = [IsAnnotator]

    @extend_schema(responses={200: api_schema.TauAssignmentOut})
    def get(self, request: Request, pk: int) -> Response:
        assignment = _own(selectors.tau_assignment_get(user=request.user, pk=pk))
        return Response(_tau_assignment_data(assignment))


class TauSubmitView(APIView):
    """Submit your alignment: one-to-one [answer index, gold index] pairs (0-based) and an error type for every
    triplet left unaligned."""

    permission_classes = [IsAnnotator]

    @extend_schema(request=TauSubmitSerializer, responses={201: api_schema.TauLabelOut, 400: OpenApiTypes.OBJECT})
    def post(self, request: Request, pk: int) -> Response:
        assignment = _own(selectors.tau_assignment_get(user=request.user, pk=pk))
        label = _submit(request, TauSubmitSerializer, partial(services.tau_label_submit, assignment=assignment))
        return Response(_tau_label_data(label), status=status.HTTP_201_CREATED)


def _consensus_or_refuse(request: Request, pk: int) -> selectors.ConsensusView:
    try:
        view = selectors.consensus_get(user=request.user, item_pk=pk)
    except selectors.NotOpenYet as exc:
        raise PermissionDenied(str(exc)) from exc
    if view is None:
        raise NotFound("no such item")
    return view


class ConsensusView(APIView):
    """Both verdicts and every decision, for the item's annotators and reviewers, once both are in."""

    permission_classes = [UsesAnnotation]

    @extend_schema(responses={200: api_schema.ConsensusOut, 403: OpenApiTypes.OBJECT})
    def get(self, request: Request, pk: int) -> Response:
        view = _consensus_or_refuse(request, pk)
        return Response(
            {
                "item": view.item.pk,
                "state": view.item.state,
                "question": {
                    "id": view.item.question_id,
                    "text": view.item.question.text,
                    "status": view.item.question.status,
                },
                "reviews": [
                    {"annotator": r.assignment.annotator.get_username(), **api_schema.ReviewOut(r).data}
                    for r in view.reviews
                ],
                "decisions": [
                    {
                        "version": d.version,
                        "decision": d.decision,
                        "ground_truth": d.ground_truth,
                        "rule": d.rule,
                        "decided_by": d.decided_by.get_username() if d.decided_by else None,
                        "decided_at": d.decided_at,
                    }
                    for d in view.decisions
                ],
            }
        )


class ConsensusDecideView(APIView):
    """Record the final decision on a question whose two reviews are in (one of its annotators or a reviewer of its
    project): validated with the final ground truth, or rejected. Each decision is a new version."""

    permission_classes = [UsesAnnotation]

    @extend_schema(request=DecideSerializer, responses={201: api_schema.DecisionOut, 403: OpenApiTypes.OBJECT})
    def post(self, request: Request, pk: int) -> Response:
        view = _consensus_or_refuse(request, pk)
        decide = partial(services.consensus_decide, item=view.item)
        decision = _submit(request, DecideSerializer, decide, refuse=PermissionDenied)
        return Response({"version": decision.version, "decision": decision.decision}, status=status.HTTP_201_CREATED)


class ConsensusReopenView(APIView):
    """A reviewer of the question's project reopens its decided item for a new decision, with a reason."""

    permission_classes = [UsesAnnotation]

    @extend_schema(request=ReopenSerializer, responses={200: api_schema.ReopenOut, 403: OpenApiTypes.OBJECT})
    def post(self, request: Request, pk: int) -> Response:
        view = _consensus_or_refuse(request, pk)
        reopen = partial(services.consensus_reopen, item=view.item)
        item = _submit(request, ReopenSerializer, reopen, refuse=PermissionDenied)
        return Response({"item": item.pk, "state": item.state})
