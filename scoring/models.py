"""Stored scores: CDK-E judge metrics per generation and evaluator, knowledge graphs and their triplets,
graph similarities (GoldSim / CtxSim), TAU diagnoses and similarity-benchmark results."""

from django.conf import settings
from django.db import models
from django.db.models import Q

from evalplatform.corpus.models import Dataset, Question, TextPair
from evalplatform.runs.fields import ScrubbedJSONField, ScrubbedTextField
from evalplatform.runs.models import Generation, ModelEndpoint, Run


class ScoreStatus(models.TextChoices):
    OK = "ok", "Scored"
    UNPARSEABLE = "unparseable", "Judge output could not be parsed (after one repair)"
    FAILED = "failed", "The call failed"
    SKIPPED = "skipped", "Not scored: an input was empty (counted, never averaged)"


class GenerationScore(models.Model):
    """One CDK-E metric of one generation by one scorer.

    ``scorer`` is the evaluator endpoint's name for judge metrics (fc, ac, acc, cm, lav) and the embedding
    model's name for ass. A value is present only when status is ok: an unparseable or failed score is
    counted and shown, never averaged as 0."""

    class Metric(models.TextChoices):
        ASS = "ass", "Answer semantic similarity"
        FC = "fc", "Factual correctness (statement F1)"
        AC = "ac", "Answer correctness"
        ACC = "acc", "Accuracy (0-1 in quarters)"
        CM = "cm", "Completeness (0-1 in quarters)"
        LAV = "lav", "LLM answer validation (1 valid, 0 not)"

    generation = models.ForeignKey(Generation, on_delete=models.CASCADE, related_name="scores")
    scorer = models.CharField(max_length=200, help_text="Evaluator endpoint name, or the embedder for ass.")
    evaluator = models.ForeignKey(
        ModelEndpoint,
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="scores",
        help_text="The evaluator endpoint for judge metrics; empty for embedding metrics.",
    )
    metric = models.CharField(max_length=6, choices=Metric.choices)
    value = models.FloatField(null=True, blank=True, help_text="In [0, 1]; empty unless status is ok.")
    status = models.CharField(max_length=12, choices=ScoreStatus.choices, default=ScoreStatus.OK)
    raw_output = ScrubbedTextField(blank=True, help_text="What the judge answered, verbatim.")
    details = ScrubbedJSONField(default=dict, blank=True, help_text="Statements, TP/FP/FN, weights, repair attempts.")
    metric_version = models.CharField(max_length=40, blank=True, help_text="Version of the metric and its prompt.")
    ground_truth = models.TextField(
        blank=True, help_text="The ground truth this score was computed against (a later consensus may change it)."
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["generation", "scorer", "metric"], name="score_one_per_metric"),
            models.CheckConstraint(
                condition=Q(value__isnull=True) | (Q(value__gte=0) & Q(value__lte=1)), name="score_value_in_unit"
            ),
            models.CheckConstraint(
                condition=(Q(status="ok") & Q(value__isnull=False)) | (~Q(status="ok") & Q(value__isnull=True)),
                name="score_value_only_when_ok",
            ),
        ]
        indexes = [models.Index(fields=["metric", "status"])]

    def __str__(self) -> str:
        return f"{self.metric}={self.value} by {self.scorer} ({self.status})"


class SimilarityTodo(models.Model):
    """An answered cell whose ASS is still to compute: the similarity stage's queue. A batch takes its rows in
    order and deletes them in the transaction that stores their ASS, so that it reads its own few rows, never
    the whole run (issue 15). Added after each answer; the stage's re-send adds any that a lost worker missed."""

    generation = models.OneToOneField(
        Generation, primary_key=True, on_delete=models.CASCADE, related_name="similarity_todo"
    )
    run = models.ForeignKey(Run, on_delete=models.CASCADE, related_name="+", db_index=False)

    class Meta:
        indexes = [models.Index(fields=["run", "generation"], name="similarity_todo_by_run")]

    def __str__(self) -> str:
        return f"ASS to compute: generation {self.generation_id} of run {self.run_id}"


class ErrorTypeJudgement(models.Model):
    """An evaluator's error type of an answer its LAV found invalid (paper C's error analysis): hallucination,
    context misalignment or verbose. Written with that evaluator's scores, in the same transaction."""

    class Label(models.TextChoices):
        HALLUCINATION = "hallucination", "Hallucination: facts in neither the context nor the ground truth"
        CONTEXT_MISALIGNMENT = "context_misalignment", "Context misalignment: other facts than the context's"
        VERBOSE = "verbose", "Verbose: the right facts buried in what was not asked"

    generation = models.ForeignKey(Generation, on_delete=models.CASCADE, related_name="error_types")
    scorer = models.CharField(max_length=200, help_text="The evaluator endpoint's name.")
    evaluator = models.ForeignKey(ModelEndpoint, on_delete=models.PROTECT, related_name="error_types")
    label = models.CharField(max_length=24, choices=Label.choices, blank=True, help_text="Empty unless status is ok.")
    status = models.CharField(max_length=12, choices=ScoreStatus.choices, default=ScoreStatus.OK)
    raw_output = ScrubbedTextField(blank=True, help_text="What the judge answered, verbatim.")
    prompt_version = models.CharField(max_length=80, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["generation", "scorer"], name="error_type_one_per_evaluator"),
            models.CheckConstraint(
                condition=(Q(status="ok") & ~Q(label="")) | (~Q(status="ok") & Q(label="")),
                name="error_type_label_only_when_ok",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.label or self.status} by {self.scorer}"


class GeneratorRefusal(models.Model):
    """What a generator model made that the platform refused to store as data (CDK-E steps 1 and 2): its raw
    output and why, after one repair, kept for a person to review (the dataset's page lists them)."""

    class Step(models.TextChoices):
        FABRICATE = "fabricate", "Fabricated context"
        QUESTIONS = "questions", "Draft question"

    dataset = models.ForeignKey(Dataset, on_delete=models.CASCADE, related_name="generator_refusals")
    context_key = models.CharField(max_length=200, help_text="The context the artefact was for.")
    step = models.CharField(max_length=12, choices=Step.choices)
    generator = models.CharField(max_length=100, help_text="The generator endpoint's name.")
    prompt_version = models.CharField(max_length=80)
    raw_output = ScrubbedTextField(blank=True, help_text="What the generator returned last, verbatim.")
    problems = ScrubbedJSONField(default=list, help_text="Why it was refused, one sentence each.")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at", "-pk"]

    def __str__(self) -> str:
        return f"{self.step} for {self.context_key} refused: {'; '.join(self.problems)[:80]}"


class StatementSet(models.Model):
    """Atomic statements an evaluator extracted from a text (a ground truth, once per question and
    evaluator, reused across models, temperatures and samples; or an answer)."""

    evaluator = models.ForeignKey(ModelEndpoint, on_delete=models.CASCADE, related_name="statement_sets")
    text_hash = models.CharField(
        max_length=64, help_text="SHA-256 of what the extraction prompt is given: the question and the text."
    )
    prompt_version = models.CharField(max_length=40)
    question = models.ForeignKey(
        Question,
        null=True,
        blank=True,
        on_delete=models.CASCADE,
        related_name="statement_sets",
        help_text="Set when the text is the question's ground truth.",
    )
    statements = models.JSONField(default=list, blank=True)
    status = models.CharField(max_length=12, choices=ScoreStatus.choices, default=ScoreStatus.OK)
    raw_output = ScrubbedTextField(blank=True)
    ready = models.BooleanField(default=True, help_text="False while one worker is extracting it (the others wait).")
    claimed_at = models.DateTimeField(null=True, blank=True, help_text="When the extracting worker claimed it.")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["evaluator", "text_hash", "prompt_version"], name="statements_once_per_text"
            )
        ]

    def __str__(self) -> str:
        return f"{len(self.statements)} statements by {self.evaluator_id}"


class KnowledgeGraph(models.Model):
    """The triplets one extractor found in one text; a text is never extracted twice by one extractor version."""

    text_hash = models.CharField(max_length=64, help_text="SHA-256 of the text.")
    extractor = models.CharField(max_length=60, help_text="dependency, llm:<endpoint>, or imported.")
    extractor_version = models.CharField(
        max_length=120, help_text="The extractor's version (rules or prompt, model, package versions)."
    )
    text = models.TextField(blank=True, help_text="The text the graph was extracted from.")
    status = models.CharField(max_length=12, choices=ScoreStatus.choices, default=ScoreStatus.OK)
    raw_output = ScrubbedTextField(blank=True, help_text="The LLM extractor's raw answer, when there is one.")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["text_hash", "extractor", "extractor_version"], name="graph_once_per_text_and_extractor"
            )
        ]

    def __str__(self) -> str:
        return f"kg {self.pk} ({self.extractor}@{self.extractor_version})"


class Triplet(models.Model):
    graph = models.ForeignKey(KnowledgeGraph, on_delete=models.CASCADE, related_name="triplets")
    position = models.PositiveIntegerField(help_text="Order within the graph (the reference variant reads it).")
    head = models.CharField(max_length=500, help_text="Normalised: lower-cased, lemmatised.")
    relation = models.CharField(max_length=500)
    tail = models.CharField(max_length=500)
    raw_head = models.CharField(max_length=500, blank=True, help_text="The label as extracted or imported.")
    raw_relation = models.CharField(max_length=500, blank=True)
    raw_tail = models.CharField(max_length=500, blank=True)

    class Meta:
        ordering = ["graph", "position"]
        constraints = [models.UniqueConstraint(fields=["graph", "position"], name="triplet_position_unique")]

    def __str__(self) -> str:
        return f"({self.head}, {self.relation}, {self.tail})"


class GraphScore(models.Model):
    """S3KG of one generation's answer graph against its gold and context graphs, and their CUS."""

    generation = models.ForeignKey(Generation, on_delete=models.CASCADE, related_name="graph_scores")
    variant = models.CharField(max_length=40, help_text="s3kg, s3kg_directed, s3kg_symmetric, s3kg_reference.")
    variant_version = models.CharField(max_length=40)
    encoder = models.CharField(max_length=200, help_text="Sentence encoder used for triplets and labels.")
    alpha = models.FloatField(default=0.5, help_text="Blend of structure and semantics (S3KG Eq. 2; 0.5 default).")
    answer_graph = models.ForeignKey(KnowledgeGraph, on_delete=models.PROTECT, related_name="+")
    gold_graph = models.ForeignKey(KnowledgeGraph, on_delete=models.PROTECT, related_name="+")
    context_graph = models.ForeignKey(KnowledgeGraph, on_delete=models.PROTECT, related_name="+")
    goldsim = models.FloatField(null=True, blank=True)
    ctxsim = models.FloatField(null=True, blank=True)
    cus = models.FloatField(null=True, blank=True)
    status = models.CharField(max_length=12, choices=ScoreStatus.choices, default=ScoreStatus.OK)
    skipped_reason = models.CharField(max_length=200, blank=True, help_text="Why it was not scored (empty graph...).")
    details = models.JSONField(default=dict, blank=True, help_text="Structural and semantic parts of each score.")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["generation", "variant", "encoder", "alpha"], name="graph_score_one_per_variant"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.variant} gold={self.goldsim} ctx={self.ctxsim} cus={self.cus}"


class TauDiagnosis(models.Model):
    """Triplet-level error diagnosis of one low-scoring generation (TAU, on the lowest 5 % by CUS)."""

    graph_score = models.OneToOneField(GraphScore, on_delete=models.CASCADE, related_name="tau")
    threshold = models.FloatField(default=0.76, help_text="Sentence cosine above which triplets align (S3KG §4).")
    aligned = models.JSONField(default=list, help_text="[answer index, gold index, cosine] per aligned pair.")
    relation_wrong = models.JSONField(default=list)
    entity_wrong = models.JSONField(default=list)
    extra = models.JSONField(default=list, help_text="Answer triplets with no gold counterpart (hallucinated).")
    missing = models.JSONField(default=list, help_text="Gold triplets the answer does not state.")
    counts = models.JSONField(default=dict)
    created_at = models.DateTimeField(auto_now_add=True)

    def __str__(self) -> str:
        return f"tau {self.pk} {self.counts}"


class BenchmarkResult(models.Model):
    """One method's paraphrase-detection result on one pairs dataset (a similarity_benchmark run)."""

    run = models.ForeignKey(Run, on_delete=models.CASCADE, related_name="benchmark_results")
    method = models.CharField(max_length=80, help_text="s3kg, s3kg@alpha=0.3, rouge1, bleu, minilm...")
    n = models.PositiveIntegerField()
    f1 = models.FloatField(null=True, blank=True, help_text="Best F1 over the threshold sweep.")
    auroc = models.FloatField(null=True, blank=True)
    threshold = models.FloatField(null=True, blank=True)
    precision = models.FloatField(null=True, blank=True)
    recall = models.FloatField(null=True, blank=True)
    status = models.CharField(max_length=40, default="ok", help_text="ok, or why the method could not run.")

    class Meta:
        constraints = [models.UniqueConstraint(fields=["run", "method"], name="benchmark_one_per_method")]

    def __str__(self) -> str:
        return f"{self.method}: F1={self.f1} AUROC={self.auroc}"


class PairScore(models.Model):
    """One method's similarity for one text pair in a benchmark run (kept for plots and drill-down)."""

    run = models.ForeignKey(Run, on_delete=models.CASCADE, related_name="pair_scores")
    pair = models.ForeignKey(TextPair, on_delete=models.CASCADE, related_name="scores")
    method = models.CharField(max_length=80)
    value = models.FloatField()

    class Meta:
        constraints = [models.UniqueConstraint(fields=["run", "pair", "method"], name="pair_score_one_per_method")]

    def __str__(self) -> str:
        return f"{self.method}={self.value:.3f}"


class RunSnapshot(models.Model):
    """A results function's output for a run, kept while the run's progress and status are those it was computed
    at (``scoring.snapshots``): reading a large run's results then costs one query."""

    run = models.ForeignKey(Run, on_delete=models.CASCADE, related_name="snapshots")
    key = models.CharField(max_length=200, help_text="The results function and its arguments.")
    version = models.PositiveIntegerField(help_text="The snapshots' code version it was computed by.")
    progress_done = models.PositiveIntegerField(help_text="The run's finished units when it was computed.")
    status = models.CharField(max_length=12, help_text="The run's status when it was computed.")
    payload = models.JSONField(help_text="The output, as JSON.")
    computed_at = models.DateTimeField()

    class Meta:
        constraints = [models.UniqueConstraint(fields=["run", "key"], name="snapshot_once_per_run_and_key")]

    def __str__(self) -> str:
        return f"run {self.run_id} {self.key} at {self.progress_done}"


class RetestBatch(models.Model):
    """A test–retest of a finished CDK-E run's judges (``scoring.cdke.retest``): a sample of its answers, drawn
    with a seed, re-judged by every evaluator of the run with the response cache off. One batch per run, sample
    size and seed, so that starting the same retest again resumes it instead of drawing a second one."""

    run = models.ForeignKey(Run, on_delete=models.CASCADE, related_name="retest_batches")
    sample_size = models.PositiveIntegerField(help_text="Answers asked for (fewer when the run has fewer).")
    seed = models.PositiveIntegerField(default=0, help_text="Seed of the sample's draw.")
    generations = models.JSONField(default=list, help_text="The sampled generations' ids, in the order drawn.")
    evaluators = models.JSONField(default=list, help_text="The evaluator endpoints' names re-judging them.")
    metrics = models.JSONField(default=list, help_text="The metrics re-judged: acc, cm and lav that the run chose.")
    cost_usd = models.DecimalField(max_digits=12, decimal_places=6, default=0, help_text="Spent on the retest.")
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="retest_batches"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    finished_at = models.DateTimeField(null=True, blank=True, help_text="When its last unit was stored.")

    class Meta:
        ordering = ["-created_at", "-pk"]
        constraints = [
            models.UniqueConstraint(fields=["run", "sample_size", "seed"], name="retest_once_per_sample_and_seed")
        ]

    def __str__(self) -> str:
        return f"retest {self.pk} of run {self.run_id} ({self.sample_size} answers, seed {self.seed})"


class RetestScore(models.Model):
    """One metric of one sampled answer, judged a second time by the same evaluator (the first time is the run's
    GenerationScore, never touched). A value is present only when status is ok, as for GenerationScore."""

    batch = models.ForeignKey(RetestBatch, on_delete=models.CASCADE, related_name="scores")
    generation = models.ForeignKey(Generation, on_delete=models.CASCADE, related_name="retest_scores")
    evaluator = models.ForeignKey(ModelEndpoint, on_delete=models.PROTECT, related_name="retest_scores")
    metric = models.CharField(max_length=6, choices=GenerationScore.Metric.choices)
    value = models.FloatField(null=True, blank=True)
    status = models.CharField(max_length=12, choices=ScoreStatus.choices, default=ScoreStatus.OK)
    raw_output = ScrubbedTextField(blank=True, help_text="What the judge answered, verbatim.")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["batch", "generation", "evaluator", "metric"], name="retest_score_one_per_metric"
            ),
            models.CheckConstraint(
                condition=Q(value__isnull=True) | (Q(value__gte=0) & Q(value__lte=1)), name="retest_value_in_unit"
            ),
            models.CheckConstraint(
                condition=(Q(status="ok") & Q(value__isnull=False)) | (~Q(status="ok") & Q(value__isnull=True)),
                name="retest_value_only_when_ok",
            ),
        ]

    def __str__(self) -> str:
        return f"retest {self.metric}={self.value} of gen {self.generation_id} ({self.status})"
