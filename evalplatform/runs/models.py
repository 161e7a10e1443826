"""Model endpoints, runs and the generations a run produces (one per cell)."""

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.validators import MinValueValidator, RegexValidator
from django.db import models
from django.db.models import F, Q

from evalplatform.corpus.models import Dataset, Question
from evalplatform.llm.redaction import key_env_allowed
from evalplatform.runs.fields import ScrubbedJSONField, ScrubbedTextField

ENV_VAR_NAME = RegexValidator(
    r"^[A-Z_][A-Z0-9_]*$",
    "Give the NAME of an environment variable (e.g. OPENAI_API_KEY), never the key itself.",
)
KEY_ENV_REFUSED = (
    "Name a variable that holds a key: *_API_KEY, *_TOKEN or AWS_*, or one listed in "
    "EVALPLATFORM_API_KEY_ENV_ALLOWLIST."
)


class ModelEndpoint(models.Model):
    """A model the platform can call. Its API key lives in the environment; this row holds only its name."""

    class Provider(models.TextChoices):
        OPENAI = "openai", "OpenAI"
        OPENAI_COMPATIBLE = "openai_compatible", "OpenAI-compatible server (vLLM, Ollama, llama.cpp...)"
        BEDROCK = "bedrock", "AWS Bedrock (Converse API)"
        LOCAL = "local", "Local llama.cpp server started on demand"
        IMPORTED = "imported", "Answers imported with a dataset (never called)"

    class Mode(models.TextChoices):
        CHAT = "chat", "Chat messages"
        COMPLETION = "completion", "Completion prompt"

    name = models.SlugField(max_length=100, unique=True, help_text="Name used in run specs, e.g. 'local'.")
    provider = models.CharField(max_length=20, choices=Provider.choices, help_text="Which backend serves it.")
    model_id = models.CharField(max_length=200, help_text="Model identifier the provider expects.")
    base_url = models.URLField(blank=True, help_text="Base URL of an OpenAI-compatible server; empty for OpenAI.")
    region = models.CharField(max_length=40, blank=True, help_text="AWS region for Bedrock.")
    mode = models.CharField(max_length=12, choices=Mode.choices, default=Mode.CHAT, help_text="Chat or completion.")
    default_temperature = models.FloatField(default=0.2, validators=[MinValueValidator(0.0)])
    default_top_p = models.FloatField(default=0.9, help_text="Nucleus sampling (paper C: 0.9).")
    default_top_k = models.PositiveIntegerField(null=True, blank=True, help_text="Top-k sampling (paper C: 50).")
    default_max_tokens = models.PositiveIntegerField(default=256, help_text="Longest answer allowed.")
    price_input_per_mtok = models.DecimalField(
        max_digits=10, decimal_places=4, default=0, help_text="USD per million input tokens."
    )
    price_output_per_mtok = models.DecimalField(
        max_digits=10, decimal_places=4, default=0, help_text="USD per million output tokens."
    )
    api_key_env = models.CharField(
        max_length=100,
        blank=True,
        validators=[ENV_VAR_NAME],
        help_text="Name of the environment variable that holds the API key (never the key).",
    )
    max_concurrency = models.PositiveIntegerField(default=4, help_text="Most calls in flight at once.")
    rate_limit_per_s = models.FloatField(default=0, help_text="Most calls per second; 0 = no limit.")
    timeout_s = models.FloatField(default=60.0, help_text="Seconds before a call is abandoned (then retried).")
    max_attempts = models.PositiveIntegerField(
        default=5, help_text="Tries per call on timeouts, 429 and 5xx, with exponential backoff and jitter."
    )
    is_active = models.BooleanField(default=True, help_text="Inactive endpoints cannot be chosen for new runs.")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["name"]
        constraints = [
            models.CheckConstraint(
                condition=Q(price_input_per_mtok__gte=0) & Q(price_output_per_mtok__gte=0),
                name="endpoint_prices_not_negative",
            ),
            models.CheckConstraint(
                condition=Q(api_key_env__regex=r"^([A-Z_][A-Z0-9_]*)?$"), name="endpoint_key_is_a_name"
            ),
        ]

    def __str__(self) -> str:
        return self.name

    def clean(self) -> None:
        """The key variable must look like a key (``*_API_KEY``, ``*_TOKEN``, ``AWS_*``) or be allow-listed
        (EVALPLATFORM_API_KEY_ENV_ALLOWLIST): any other variable (DATABASE_URL...) would be sent as a key."""
        super().clean()
        if not key_env_allowed(self.api_key_env, settings.API_KEY_ENV_ALLOWLIST):
            raise ValidationError({"api_key_env": KEY_ENV_REFUSED})


class Run(models.Model):
    class Kind(models.TextChoices):
        CDKE = "cdke", "CDK-E: answers and judge metrics"
        KG = "kg", "S3KG / CUS / TAU over knowledge graphs"
        SIMILARITY_BENCHMARK = "similarity_benchmark", "Similarity benchmark over text pairs"

    class Status(models.TextChoices):
        QUEUED = "queued", "Queued"
        RUNNING = "running", "Running"
        DONE = "done", "Done"
        FAILED = "failed", "Failed"
        CANCELLED = "cancelled", "Cancelled"

    class Condition(models.TextChoices):
        DIVERGENT = "divergent", "Divergent context (the method)"
        REAL = "real", "Real context (the control)"
        NONE = "none", "No context (closed book)"

    kind = models.CharField(max_length=24, choices=Kind.choices)
    dataset = models.ForeignKey(Dataset, on_delete=models.PROTECT, related_name="runs")
    spec = models.JSONField(
        default=dict,
        help_text="models, evaluators, temperatures, conditions, samples per cell, seed, limit, options.",
    )
    status = models.CharField(max_length=12, choices=Status.choices, default=Status.QUEUED)
    status_reason = ScrubbedTextField(blank=True, help_text="Why the run failed, stopped or was cancelled.")
    progress_total = models.PositiveIntegerField(default=0, help_text="Units of work planned.")
    progress_done = models.PositiveIntegerField(default=0, help_text="Units of work finished.")
    progress_failed = models.PositiveIntegerField(default=0, help_text="Units of work that failed.")
    cost_usd = models.DecimalField(max_digits=12, decimal_places=6, default=0, help_text="Spent so far.")
    budget_usd = models.DecimalField(
        max_digits=12, decimal_places=4, null=True, blank=True, help_text="Hard budget; the run stops cleanly there."
    )
    manifest = models.JSONField(default=dict, blank=True, help_text="Versions of code, prompts and metrics used.")
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="runs"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    planned_at = models.DateTimeField(
        null=True, blank=True, help_text="When its cells were all written (a large run is planned by a worker)."
    )
    progress_at = models.DateTimeField(null=True, blank=True, help_text="When a unit of work last finished.")
    watchdog_kicks = models.PositiveIntegerField(
        default=0, help_text="Times the watchdog re-sent its stale work since the run last made progress."
    )
    feed_from_id = models.BigIntegerField(
        null=True,
        blank=True,
        help_text="Every unsent cell of the run has at least this id (the feeder starts there; empty: from the first).",
    )

    class Meta:
        ordering = ["-created_at", "-pk"]
        constraints = [
            models.CheckConstraint(
                condition=Q(progress_done__lte=F("progress_total")), name="run_progress_within_total"
            ),
        ]
        indexes = [models.Index(fields=["status"])]

    def __str__(self) -> str:
        return f"run {self.pk} ({self.kind}, {self.dataset.name}, {self.status})"

    @property
    def is_active(self) -> bool:
        """Queued or running: work may still be sent for it."""
        return self.status in ACTIVE_STATUSES

    @property
    def progress_percent(self) -> float:
        return 100.0 * self.progress_done / self.progress_total if self.progress_total else 0.0


# The statuses of a run that may still send work (its Stop button shows, its tasks go on).
ACTIVE_STATUSES = (Run.Status.QUEUED, Run.Status.RUNNING)


class StageProgress(models.Model):
    """How far one stage of a run is, counted as its units finish (never recounted on the hot path): each unit's
    write and its count are one transaction, and a unit is counted only by the writer that stored it, so a
    retried or redelivered task cannot count twice. The run's own progress fields are the sums over its stages.
    ``per_cell`` is how many units each cell gives this stage; a failed answer finishes them all as failed."""

    run = models.ForeignKey(Run, on_delete=models.CASCADE, related_name="stage_progress")
    stage = models.CharField(max_length=40, help_text="The stage's registered name: answer, judge, graphs...")
    per_cell = models.PositiveIntegerField(help_text="Units of work each cell gives this stage.")
    total = models.PositiveIntegerField(help_text="Units planned: cells x per_cell.")
    done = models.PositiveIntegerField(default=0, help_text="Units finished, failed ones included.")
    failed = models.PositiveIntegerField(default=0, help_text="Units that failed.")

    class Meta:
        ordering = ["run", "pk"]
        constraints = [models.UniqueConstraint(fields=["run", "stage"], name="stage_progress_once_per_run")]

    def __str__(self) -> str:
        return f"run {self.run_id} {self.stage}: {self.done}/{self.total} ({self.failed} failed)"


class Generation(models.Model):
    """One answer of one model to one question, in one cell of a run."""

    class Status(models.TextChoices):
        PENDING = "pending", "Pending"
        DONE = "done", "Done"
        FAILED = "failed", "Failed"

    run = models.ForeignKey(Run, on_delete=models.CASCADE, related_name="generations")
    question = models.ForeignKey(Question, on_delete=models.CASCADE, related_name="generations")
    model = models.ForeignKey(ModelEndpoint, on_delete=models.PROTECT, related_name="generations")
    temperature = models.FloatField(validators=[MinValueValidator(0.0)])
    sample_index = models.PositiveIntegerField(default=0, help_text="Which sample of the cell (0-based).")
    condition = models.CharField(max_length=12, choices=Run.Condition.choices)
    prompt_version = models.CharField(max_length=40, blank=True)
    prompt_hash = models.CharField(max_length=64, blank=True, help_text="SHA-256 of the exact prompt sent.")
    text = ScrubbedTextField(blank=True, help_text="The model's answer.")
    tokens_in = models.PositiveIntegerField(default=0)
    tokens_out = models.PositiveIntegerField(default=0)
    latency_s = models.FloatField(default=0, help_text="Seconds the provider took (0 when served from cache).")
    cost_usd = models.DecimalField(max_digits=12, decimal_places=6, default=0)
    cached = models.BooleanField(default=False, help_text="Served from the response cache.")
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.PENDING)
    error = ScrubbedTextField(blank=True, help_text="Why it failed, when it did.")
    queued_at = models.DateTimeField(
        null=True, blank=True, help_text="When its answer task was last sent to the workers (empty: not yet)."
    )
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["run", "question", "model", "temperature", "condition", "sample_index"]
        constraints = [
            models.UniqueConstraint(
                fields=["run", "question", "model", "temperature", "condition", "sample_index"],
                name="generation_one_per_cell",
            ),
            models.CheckConstraint(condition=Q(temperature__gte=0), name="generation_temperature_not_negative"),
        ]
        indexes = [
            models.Index(fields=["run", "status"]),
            # The feeder's two reads, each of its own few rows at any run size (issue 15): the next cells to send,
            # in plan order, and the cells sent and not answered yet.
            models.Index(
                fields=["run", "id"],
                condition=Q(status="pending", queued_at__isnull=True),
                name="generation_unsent",
            ),
            models.Index(
                fields=["run"],
                condition=Q(status="pending", queued_at__isnull=False),
                name="generation_in_flight",
            ),
        ]

    def __str__(self) -> str:
        return f"gen {self.pk} run {self.run_id} q {self.question_id} {self.condition} t={self.temperature}"


class CachedResponse(models.Model):
    """The content-addressed response cache shared by every worker: the key hashes provider, model, the
    full request (sampling parameters and seed included) and the prompt version."""

    key = models.CharField(max_length=64, unique=True, help_text="SHA-256 of what was asked.")
    provider = models.CharField(max_length=200)
    model_id = models.CharField(max_length=200)
    response = ScrubbedJSONField(help_text="The provider's response: text, tokens, latency, raw payload.")
    created_at = models.DateTimeField(auto_now_add=True)

    def __str__(self) -> str:
        return f"{self.provider}/{self.model_id} {self.key[:12]}"
