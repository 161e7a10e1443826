"""What the corpus API shows of datasets, contexts and questions."""

from typing import Any

from django.db.models import Count
from rest_framework import serializers

from evalplatform.corpus.models import Alteration, Context, Dataset, Question
from evalplatform.corpus.selectors import dataset_counts


def question_status_counts(dataset: Dataset) -> dict[str, int]:
    """How many of the dataset's questions are draft, in review, validated, rejected (every status listed)."""
    found = dict(dataset.questions.values_list("status").annotate(n=Count("pk")).values_list("status", "n"))
    return {status: found.get(status, 0) for status in Question.Status.values}


class DatasetSerializer(serializers.ModelSerializer):
    project: serializers.SlugRelatedField[Any] = serializers.SlugRelatedField(slug_field="name", read_only=True)
    created_by: serializers.SlugRelatedField[Any] = serializers.SlugRelatedField(slug_field="username", read_only=True)

    class Meta:
        model = Dataset
        fields = [
            "name",
            "kind",
            "version",
            "licence",
            "source",
            "description",
            "project",
            "import_format",
            "created_by",
            "created_at",
        ]


class DatasetDetailSerializer(DatasetSerializer):
    counts = serializers.SerializerMethodField()
    question_status = serializers.SerializerMethodField()

    class Meta(DatasetSerializer.Meta):
        fields = [*DatasetSerializer.Meta.fields, "counts", "question_status"]

    def get_counts(self, dataset: Dataset) -> dict[str, int]:
        return dataset_counts(dataset)

    def get_question_status(self, dataset: Dataset) -> dict[str, int]:
        return question_status_counts(dataset)


class AlterationSerializer(serializers.ModelSerializer):
    class Meta:
        model = Alteration
        fields = ["position", "field", "original", "divergent"]


class ContextSerializer(serializers.ModelSerializer):
    alterations = AlterationSerializer(many=True, read_only=True)

    class Meta:
        model = Context
        fields = ["key", "position", "topic", "text", "source_text", "alterations"]


class QuestionSerializer(serializers.ModelSerializer):
    context = serializers.SlugRelatedField(slug_field="key", read_only=True)  # type: ignore[assignment,var-annotated]

    class Meta:
        model = Question
        fields = ["key", "context", "position", "text", "ground_truth", "original_answer", "status"]
