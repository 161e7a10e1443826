"""What the corpus API shows of datasets, contexts and questions."""

from typing import Any

from django.db.models import Count
from rest_framework import serializers

from evalplatform.corpus.models import Alteration, Context, Dataset, Question
from evalplatform.corpus.selectors import dataset_counts
from evalplatform.corpus.services import UPLOAD_FORMATS
from evalplatform.strict import StrictFieldsMixin


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
    versions = serializers.SerializerMethodField()

    class Meta(DatasetSerializer.Meta):
        fields = [*DatasetSerializer.Meta.fields, "counts", "question_status", "versions"]

    def get_versions(self, dataset: Dataset) -> list[int]:
        """Every version number of this name, newest first."""
        return list(Dataset.objects.filter(name=dataset.name).order_by("-version").values_list("version", flat=True))

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


class DatasetUploadSerializer(StrictFieldsMixin, serializers.Serializer):
    """An upload (multipart/form-data): the file, its format, and optionally the dataset's name (else the file's
    own, for dkd) and the project whose researchers see it. Re-uploading under a name makes its next version."""

    file = serializers.FileField(help_text="The dataset file, in one of the import formats.")
    format = serializers.ChoiceField(choices=list(UPLOAD_FORMATS), help_text="The file's import format.")
    name = serializers.SlugField(required=False, allow_blank=True, max_length=120, help_text="The dataset's name.")
    project = serializers.SlugField(
        required=False, allow_blank=True, help_text="A project of yours whose researchers see the dataset."
    )
    key_by_line = serializers.BooleanField(
        default=False, help_text="qa-jsonl, pairs-jsonl: key records by line (for files whose ids repeat)."
    )
