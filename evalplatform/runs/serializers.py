"""What the runs API shows and accepts: runs, their progress, generations with every score, endpoints."""

from typing import Any

from rest_framework import serializers

from evalplatform.runs.models import Generation, ModelEndpoint, Run
from evalplatform.runs.spec import CONDITIONS
from scoring.models import GenerationScore


class EndpointSerializer(serializers.ModelSerializer):
    """An endpoint as a researcher chooses it; the name of its key variable is not shown."""

    class Meta:
        model = ModelEndpoint
        fields = [
            "name",
            "provider",
            "model_id",
            "mode",
            "default_temperature",
            "price_input_per_mtok",
            "price_output_per_mtok",
            "is_active",
        ]


class RunSerializer(serializers.ModelSerializer):
    dataset: serializers.SlugRelatedField[Any] = serializers.SlugRelatedField(slug_field="name", read_only=True)
    dataset_version = serializers.IntegerField(
        source="dataset.version", read_only=True, help_text="The version of the dataset the run used."
    )
    created_by: serializers.SlugRelatedField[Any] = serializers.SlugRelatedField(slug_field="username", read_only=True)
    progress_percent = serializers.FloatField(read_only=True)

    class Meta:
        model = Run
        fields = [
            "id",
            "kind",
            "dataset",
            "dataset_version",
            "spec",
            "status",
            "status_reason",
            "progress_total",
            "progress_done",
            "progress_failed",
            "progress_percent",
            "cost_usd",
            "budget_usd",
            "manifest",
            "created_by",
            "created_at",
            "started_at",
            "finished_at",
        ]


class ProgressSerializer(serializers.ModelSerializer):
    progress_percent = serializers.FloatField(read_only=True)

    class Meta:
        model = Run
        fields = ["id", "status", "progress_total", "progress_done", "progress_failed", "progress_percent"]


class RunLaunchSerializer(serializers.Serializer):
    """A CDK-E run as the launch form and POST /api/runs/ take it; validated again by RunSpec."""

    dataset = serializers.SlugField()
    models = serializers.ListField(child=serializers.SlugField(), min_length=1, max_length=20)
    evaluators = serializers.ListField(child=serializers.SlugField(), default=list, max_length=20)
    temperatures = serializers.ListField(
        child=serializers.FloatField(min_value=0.0, max_value=2.0), default=[0.2], min_length=1, max_length=10
    )
    conditions = serializers.ListField(
        child=serializers.ChoiceField(choices=list(CONDITIONS)), default=["divergent"], min_length=1, max_length=3
    )
    samples = serializers.IntegerField(min_value=1, max_value=100, default=1)
    limit = serializers.IntegerField(min_value=1, required=False, allow_null=True, default=None)
    per_context = serializers.IntegerField(min_value=1, required=False, allow_null=True, default=None)
    budget_usd = serializers.DecimalField(
        max_digits=12, decimal_places=4, min_value=0, required=False, allow_null=True, default=None
    )

    def spec(self) -> dict[str, Any]:
        data = self.validated_data
        spec = {k: data[k] for k in ("models", "evaluators", "temperatures", "conditions", "samples")}
        for optional in ("limit", "per_context"):
            if data.get(optional) is not None:
                spec[optional] = data[optional]
        return spec


class EstimateSerializer(serializers.Serializer):
    n_requests = serializers.IntegerField()
    input_tokens = serializers.IntegerField()
    output_tokens = serializers.IntegerField()
    cost_usd = serializers.FloatField()


class GenerationSerializer(serializers.ModelSerializer):
    question: serializers.SlugRelatedField[Any] = serializers.SlugRelatedField(slug_field="key", read_only=True)
    model: serializers.SlugRelatedField[Any] = serializers.SlugRelatedField(slug_field="name", read_only=True)

    class Meta:
        model = Generation
        fields = [
            "id",
            "question",
            "model",
            "temperature",
            "condition",
            "sample_index",
            "status",
            "text",
            "tokens_in",
            "tokens_out",
            "latency_s",
            "cost_usd",
            "cached",
            "error",
        ]


class ScoreSerializer(serializers.ModelSerializer):
    class Meta:
        model = GenerationScore
        fields = ["generation", "scorer", "metric", "value", "status", "raw_output", "details", "metric_version"]


class TripletListField(serializers.ListField):
    child = serializers.ListField(child=serializers.CharField(), min_length=3, max_length=3)


class GraphScoreDetailSerializer(serializers.Serializer):
    variant = serializers.CharField()
    alpha = serializers.FloatField()
    encoder = serializers.CharField()
    status = serializers.CharField()
    goldsim = serializers.FloatField(allow_null=True)
    ctxsim = serializers.FloatField(allow_null=True)
    cus = serializers.FloatField(allow_null=True)
    skipped_reason = serializers.CharField()
    answer_triplets = TripletListField()
    gold_triplets = TripletListField()
    context_triplets = TripletListField()
    tau = serializers.DictField(allow_null=True)


class GenerationDetailSerializer(serializers.Serializer):
    generation = GenerationSerializer()
    context = serializers.CharField()  # type: ignore[assignment]
    question = serializers.CharField()
    ground_truth = serializers.CharField()
    scores = ScoreSerializer(many=True)
    graphs = GraphScoreDetailSerializer(many=True)
