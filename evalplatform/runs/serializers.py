"""What the runs API shows and accepts: runs, their progress, generations with every score, endpoints."""

from typing import Any

from django.utils import timezone
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from evalplatform.runs.models import Generation, ModelEndpoint, Run
from evalplatform.runs.selectors import run_phases
from evalplatform.runs.spec import (
    AC_CONVENTIONS,
    CONDITIONS,
    DEFAULT_AC_CONVENTION,
    DEFAULT_JUDGE_PROMPTS,
    JUDGE_METRICS,
    JUDGE_PROMPT_SETS,
    PANEL_GRADED,
    PANEL_LAV_RULES,
    PANEL_LAV_TIES,
)
from evalplatform.strict import StrictFieldsMixin
from scoring.models import GenerationScore
from scoring.s3kg import ALPHA, VARIANTS
from scoring.tau import TAU_FRACTION


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


class PhaseSerializer(serializers.Serializer):
    stage = serializers.CharField()
    phase = serializers.CharField(help_text="answering, judging or graphs.")
    done = serializers.IntegerField()
    failed = serializers.IntegerField()
    total = serializers.IntegerField()


class ProgressSerializer(serializers.ModelSerializer):
    """The run's progress as the page polls it: units done of planned (failed among them), per phase, the time it
    has run and the time left at the pace so far."""

    progress_percent = serializers.FloatField(read_only=True)
    status_reason = serializers.CharField(read_only=True)
    elapsed_s = serializers.SerializerMethodField(help_text="Seconds since the run started (to its end if over).")
    eta_s = serializers.SerializerMethodField(help_text="Seconds left at the pace so far; null until a unit is done.")
    phases = serializers.SerializerMethodField()

    class Meta:
        model = Run
        fields = [
            "id",
            "status",
            "status_reason",
            "progress_total",
            "progress_done",
            "progress_failed",
            "progress_percent",
            "elapsed_s",
            "eta_s",
            "phases",
        ]

    def get_elapsed_s(self, run: Run) -> float | None:
        if run.started_at is None:
            return None
        end = run.finished_at or timezone.now()
        return max(0.0, (end - run.started_at).total_seconds())

    def get_eta_s(self, run: Run) -> float | None:
        elapsed = self.get_elapsed_s(run)
        if run.status != Run.Status.RUNNING or not elapsed or not run.progress_done:
            return None
        remaining = max(0, run.progress_total - run.progress_done)
        return remaining * elapsed / run.progress_done

    @extend_schema_field(PhaseSerializer(many=True))
    def get_phases(self, run: Run) -> list[dict[str, object]]:
        return run_phases(run)


class KGOptionsSerializer(StrictFieldsMixin, serializers.Serializer):
    """The knowledge-graph pass (S3KG / CUS / TAU) of a run; validated again by ``scoring.kg_spec.KGSpec``."""

    extractor = serializers.CharField(
        default="dependency", help_text="dependency (offline rules), llm:<endpoint> (the few-shot LLM extractor)."
    )
    variants = serializers.ListField(
        child=serializers.ChoiceField(choices=list(VARIANTS)), default=["s3kg"], min_length=1, max_length=10
    )
    encoder = serializers.CharField(
        required=False, allow_null=True, default=None, help_text="A sentence-transformers directory; empty: MiniLM."
    )
    alpha = serializers.FloatField(min_value=0.0, max_value=1.0, default=ALPHA, help_text="S3KG's blend (paper: 0.5).")
    tau_fraction = serializers.FloatField(
        min_value=0.0, max_value=1.0, default=TAU_FRACTION, help_text="Share of lowest-CUS items TAU diagnoses (0.05)."
    )


class PanelOptionsSerializer(StrictFieldsMixin, serializers.Serializer):
    """How a run's judges are combined into a panel (scoring.panel.PanelSpec); validated again by RunSpec."""

    lav = serializers.ChoiceField(choices=list(PANEL_LAV_RULES), default="majority", help_text="LAV: majority.")
    lav_tie = serializers.ChoiceField(
        choices=list(PANEL_LAV_TIES), default="invalid", help_text="What an even LAV split gives."
    )
    graded = serializers.ChoiceField(choices=list(PANEL_GRADED), default="mean", help_text="Acc and Cm.")
    graded_split = serializers.FloatField(
        min_value=0.0, max_value=1.0, default=0.5, help_text="A graded item splits when its scores lie this far apart."
    )


class RunLaunchSerializer(StrictFieldsMixin, serializers.Serializer):
    """A run as the launch form and POST /api/runs/ take it: every option of ``run_cdke`` and ``run_kg``; a field
    not listed here is a 400 (never dropped). Validated again by RunSpec (and KGSpec for ``kg``)."""

    dataset = serializers.SlugField(help_text="The dataset's name.")
    dataset_version = serializers.IntegerField(
        min_value=1, required=False, allow_null=True, default=None, help_text="A version; the latest if left out."
    )
    kind = serializers.ChoiceField(
        choices=[Run.Kind.CDKE, Run.Kind.KG],
        default=Run.Kind.CDKE,
        help_text="cdke: answers and judge metrics (and graphs with kg); kg: answers and graphs only.",
    )
    models = serializers.ListField(child=serializers.SlugField(), min_length=1, max_length=20)
    evaluators = serializers.ListField(child=serializers.SlugField(), default=list, max_length=20)
    temperatures = serializers.ListField(
        child=serializers.FloatField(min_value=0.0, max_value=2.0), default=[0.2], min_length=1, max_length=10
    )
    conditions = serializers.ListField(
        child=serializers.ChoiceField(choices=list(CONDITIONS)), default=["divergent"], min_length=1, max_length=3
    )
    samples = serializers.IntegerField(min_value=1, max_value=100, default=1, help_text="Answers per cell.")
    seed = serializers.IntegerField(default=0, help_text="Seed of the first sample (each sample adds its index).")
    limit = serializers.IntegerField(min_value=1, required=False, allow_null=True, default=None)
    per_context = serializers.IntegerField(min_value=1, required=False, allow_null=True, default=None)
    only_validated = serializers.BooleanField(default=False, help_text="Only questions validated by consensus.")
    use_cache = serializers.BooleanField(default=True, help_text="Serve repeated calls from the response cache.")
    ac_convention = serializers.ChoiceField(
        choices=list(AC_CONVENTIONS),
        default=DEFAULT_AC_CONVENTION,
        help_text="ragas: 0.75 on FC (reproduces paper C's Table 2); paper: 0.25, its text read literally.",
    )
    judge_prompts = serializers.ChoiceField(
        choices=list(JUDGE_PROMPT_SETS), default=DEFAULT_JUDGE_PROMPTS, help_text="The evaluators' prompt set."
    )
    metrics = serializers.ListField(
        child=serializers.ChoiceField(choices=list(JUDGE_METRICS)),
        default=list(JUDGE_METRICS),
        min_length=1,
        help_text="Judge metrics to score (AC needs FC, which is then scored too); ASS is always scored.",
    )
    kg = KGOptionsSerializer(required=False, allow_null=True, default=None, help_text="Also score knowledge graphs.")
    budget_usd = serializers.DecimalField(
        max_digits=12, decimal_places=4, min_value=0, required=False, allow_null=True, default=None
    )
    panel = PanelOptionsSerializer(required=False, allow_null=True, default=None, help_text="The judges' panel.")
    judge_min_agreement = serializers.FloatField(
        min_value=-1.0,
        max_value=1.0,
        required=False,
        allow_null=True,
        default=None,
        help_text="Flag a judge whose kappa with people's labels is below this.",
    )

    def spec(self) -> dict[str, Any]:
        data = self.validated_data
        spec = {k: data[k] for k in SPEC_FIELDS}
        for optional in ("limit", "per_context"):
            if data.get(optional) is not None:
                spec[optional] = data[optional]
        if data.get("kg") is not None:
            spec["kg"] = dict(data["kg"])
        if data.get("panel") is not None:
            spec["panel"] = dict(data["panel"])
        if data.get("judge_min_agreement") is not None:
            spec["judge_min_agreement"] = data["judge_min_agreement"]
        return spec


# What RunLaunchSerializer hands to RunSpec as it is.
SPEC_FIELDS = (
    "models",
    "evaluators",
    "temperatures",
    "conditions",
    "samples",
    "seed",
    "only_validated",
    "use_cache",
    "ac_convention",
    "judge_prompts",
    "metrics",
)


class ResumeSerializer(StrictFieldsMixin, serializers.Serializer):
    retry_failed = serializers.BooleanField(default=False, help_text="Also retry the failed answers and scores.")


class EndpointPaceSerializer(serializers.Serializer):
    name = serializers.CharField()
    latency_s = serializers.FloatField(help_text="Seconds per call used for the time estimate.")
    latency_source = serializers.CharField(help_text="'measured on N answers' or 'assumed'.")
    concurrency = serializers.IntegerField()
    rate_limit_per_s = serializers.FloatField()


class StageEstimateSerializer(serializers.Serializer):
    stage = serializers.CharField(help_text="answer, judge, graphs.")
    label = serializers.CharField()  # type: ignore[assignment]
    n_requests = serializers.IntegerField()
    input_tokens = serializers.IntegerField()
    output_tokens = serializers.IntegerField()
    cost_usd = serializers.FloatField()
    seconds = serializers.FloatField(allow_null=True)
    endpoints = EndpointPaceSerializer(many=True)


class EstimateSerializer(serializers.Serializer):
    n_requests = serializers.IntegerField()
    input_tokens = serializers.IntegerField()
    output_tokens = serializers.IntegerField()
    cost_usd = serializers.FloatField()
    seconds_low = serializers.FloatField(help_text="The longest stage: stages overlap in a real run.")
    seconds_high = serializers.FloatField(help_text="Every stage one after the other.")
    parts = StageEstimateSerializer(many=True, help_text="Answer calls, judge calls and graphs, apart.")


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
        fields = [
            "generation",
            "scorer",
            "metric",
            "value",
            "status",
            "raw_output",
            "details",
            "metric_version",
            "ground_truth",
        ]


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
    ground_truth = serializers.CharField(help_text="The question's ground truth now.")
    earlier_ground_truths = serializers.ListField(
        child=serializers.CharField(),
        help_text="Ground truths some of the scores were computed against, since replaced.",
    )
    scores = ScoreSerializer(many=True)
    graphs = GraphScoreDetailSerializer(many=True)
