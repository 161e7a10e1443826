"""The shapes the annotation API answers with, for /api/schema/: the views build these dicts themselves (through
the blind selectors), so these serializers describe them (ReviewOut also serialises a review). tests/annotation
checks that real answers carry exactly these fields."""

from __future__ import annotations

from drf_spectacular.utils import PolymorphicProxySerializer, inline_serializer
from rest_framework import serializers

from annotation.models import Consensus, Review


class ReviewOut(serializers.ModelSerializer):
    """A review as the API answers it (also what api.py serialises with)."""

    class Meta:
        model = Review
        fields = ["context_coherent", "question_valid", "ground_truth", "comment", "submitted_at"]


class QueueCountOut(serializers.Serializer):
    available = serializers.IntegerField()
    submitted = serializers.IntegerField()
    current = serializers.IntegerField(allow_null=True, help_text="Your assignment in progress, if any.")


class CalibrationCountOut(serializers.Serializer):
    available = serializers.IntegerField()
    submitted = serializers.IntegerField()


class QueueSummaryOut(serializers.Serializer):
    review = QueueCountOut()
    tau = QueueCountOut()
    calibration = CalibrationCountOut()


class QuestionRefOut(serializers.Serializer):
    id = serializers.IntegerField()
    key = serializers.CharField()
    text = serializers.CharField()


class AlterationOut(serializers.Serializer):
    field = serializers.CharField()
    original = serializers.CharField()
    divergent = serializers.CharField()


# inline_serializer: "context" and "label" are attributes of every DRF Field, so they cannot be class attributes.
ReviewAssignmentOut = inline_serializer(
    name="ReviewAssignmentOut",
    fields={
        "id": serializers.IntegerField(),
        "kind": serializers.ChoiceField(choices=["review"]),
        "item": serializers.IntegerField(),
        "status": serializers.CharField(),
        "lease_expires_at": serializers.DateTimeField(allow_null=True),
        "question": QuestionRefOut(),
        "context": serializers.CharField(),
        "alterations": AlterationOut(many=True),
        "review": ReviewOut(allow_null=True, help_text="Your own review once submitted; never anyone else's."),
    },
)


class TauLabelOut(serializers.Serializer):
    aligned = serializers.ListField(child=serializers.ListField(child=serializers.IntegerField()))
    answer_errors = serializers.DictField(child=serializers.CharField())
    gold_errors = serializers.DictField(child=serializers.CharField())


TauAssignmentOut = inline_serializer(
    name="TauAssignmentOut",
    fields={
        "id": serializers.IntegerField(),
        "kind": serializers.ChoiceField(choices=["tau"]),
        "item": serializers.IntegerField(),
        "status": serializers.CharField(),
        "lease_expires_at": serializers.DateTimeField(allow_null=True),
        "answer": serializers.JSONField(help_text="The answer's triplets, [[head, relation, tail], ...]."),
        "gold": serializers.JSONField(help_text="The gold answer's triplets."),
        "label": TauLabelOut(allow_null=True, help_text="Your own label once submitted; never anyone else's."),
    },
)


NextAssignmentOut = PolymorphicProxySerializer(
    component_name="NextAssignment",
    serializers={"review": ReviewAssignmentOut, "tau": TauAssignmentOut},
    resource_type_field_name="kind",
    many=False,
)


class AssignmentRowOut(serializers.Serializer):
    id = serializers.IntegerField()
    kind = serializers.ChoiceField(choices=["review", "tau"])
    item = serializers.IntegerField()
    status = serializers.CharField()


class MyAssignmentsOut(serializers.Serializer):
    results = AssignmentRowOut(many=True)


class ConsensusQuestionOut(serializers.Serializer):
    id = serializers.IntegerField()
    text = serializers.CharField()
    status = serializers.CharField()


class ConsensusReviewOut(ReviewOut):
    annotator = serializers.CharField()

    class Meta(ReviewOut.Meta):
        fields = ["annotator", *ReviewOut.Meta.fields]


class DecisionRowOut(serializers.Serializer):
    version = serializers.IntegerField()
    decision = serializers.ChoiceField(choices=Consensus.Decision.choices)
    ground_truth = serializers.CharField()
    rule = serializers.CharField()
    decided_by = serializers.CharField(allow_null=True)
    decided_at = serializers.DateTimeField()


class ConsensusOut(serializers.Serializer):
    item = serializers.IntegerField()
    state = serializers.CharField()
    question = ConsensusQuestionOut()
    reviews = ConsensusReviewOut(many=True)
    decisions = DecisionRowOut(many=True)


class DecisionOut(serializers.Serializer):
    version = serializers.IntegerField()
    decision = serializers.ChoiceField(choices=Consensus.Decision.choices)


class ReopenOut(serializers.Serializer):
    item = serializers.IntegerField()
    state = serializers.CharField()
