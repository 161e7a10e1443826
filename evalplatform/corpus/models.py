"""Datasets and what they hold: contexts with their alterations, questions, text pairs."""

from django.conf import settings
from django.db import models
from django.db.models import Q


class Project(models.Model):
    """A group of researchers sharing datasets and the runs on them."""

    name = models.SlugField(max_length=120, unique=True, help_text="Unique name of the project.")
    description = models.TextField(blank=True, help_text="What the project studies.")
    members = models.ManyToManyField(
        settings.AUTH_USER_MODEL, blank=True, related_name="projects", help_text="Researchers who see its results."
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name


class Dataset(models.Model):
    """One version of a dataset. Re-importing under a name makes the next version (a new row with its own
    contexts and questions), so a run keeps pointing at exactly the version it used; a lookup by name alone
    finds the latest version (``Meta.ordering`` puts it first)."""

    class Kind(models.TextChoices):
        DKD = "dkd", "Divergent-knowledge contexts with questions"
        QA = "qa", "Question answering with a context per item"
        PAIRS = "pairs", "Text pairs with a paraphrase label or a similarity score"

    name = models.SlugField(max_length=120, help_text="Name used by commands and the API, shared by its versions.")
    kind = models.CharField(max_length=10, choices=Kind.choices, help_text="What the dataset holds.")
    version = models.PositiveIntegerField(
        default=1, help_text="1 for the first import under its name, then 2, 3... (a re-import makes the next)."
    )
    licence = models.CharField(max_length=300, blank=True, help_text="Licence of the data as its source states it.")
    source = models.CharField(max_length=500, blank=True, help_text="Where the data came from (URL, paper, file).")
    description = models.TextField(blank=True, help_text="What the dataset is for; shown on its page.")
    project = models.ForeignKey(
        Project,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="datasets",
        help_text="Project whose researchers see it; without one only admins and its importer do.",
    )
    import_format = models.CharField(max_length=20, blank=True, help_text="Format of the file it was imported from.")
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="datasets",
        help_text="Who imported or created it.",
    )
    created_at = models.DateTimeField(auto_now_add=True, help_text="When it was imported.")

    class Meta:
        # The latest version of a name first: ``filter(name=...).first()`` is the current version.
        ordering = ["name", "-version"]
        constraints = [
            models.UniqueConstraint(fields=["name", "version"], name="dataset_version_unique_per_name"),
            models.CheckConstraint(condition=Q(version__gte=1), name="dataset_version_positive"),
        ]

    def __str__(self) -> str:
        return self.name if self.version == 1 else f"{self.name} v{self.version}"


class Context(models.Model):
    dataset = models.ForeignKey(Dataset, on_delete=models.CASCADE, related_name="contexts")
    key = models.CharField(max_length=200, help_text="Identifier of the context, unique within its dataset.")
    position = models.PositiveIntegerField(default=0, help_text="Order within the dataset, as imported.")
    topic = models.CharField(max_length=300, blank=True, help_text="Topic or title of the context.")
    text = models.TextField(help_text="What the model is shown: the divergent text for DKD, the passage for QA.")
    source_text = models.TextField(blank=True, help_text="The real text the divergent one was made from, where known.")

    class Meta:
        ordering = ["dataset", "position", "pk"]
        constraints = [models.UniqueConstraint(fields=["dataset", "key"], name="context_key_unique_in_dataset")]

    def __str__(self) -> str:
        return f"{self.dataset.name}/{self.key}"


class Alteration(models.Model):
    context = models.ForeignKey(Context, on_delete=models.CASCADE, related_name="alterations")
    position = models.PositiveIntegerField(default=0, help_text="Order within the context, as imported.")
    field = models.CharField(max_length=60, help_text="Kind of fact altered: date, name, place, sequence, event...")
    original = models.TextField(help_text="The real fact.")
    divergent = models.TextField(help_text="The fact as the divergent context states it.")

    class Meta:
        ordering = ["context", "position", "pk"]

    def __str__(self) -> str:
        return f"{self.field}: {self.original[:30]} -> {self.divergent[:30]}"


class Question(models.Model):
    class Status(models.TextChoices):
        DRAFT = "draft", "Draft"
        IN_REVIEW = "in_review", "In review"
        VALIDATED = "validated", "Validated"
        REJECTED = "rejected", "Rejected"

    dataset = models.ForeignKey(
        Dataset, on_delete=models.CASCADE, related_name="questions", help_text="Same as the context's dataset."
    )
    context = models.ForeignKey(Context, on_delete=models.CASCADE, related_name="questions")
    key = models.CharField(max_length=200, help_text="Identifier of the question, unique within its dataset.")
    position = models.PositiveIntegerField(default=0, help_text="Order within the context, as imported.")
    text = models.TextField(help_text="The question.")
    ground_truth = models.TextField(help_text="The answer the context gives (the divergent ground truth for DKD).")
    original_answer = models.TextField(blank=True, help_text="The answer real-world knowledge gives, where known.")
    status = models.CharField(
        max_length=12, choices=Status.choices, default=Status.DRAFT, help_text="Validation state of the question."
    )
    metadata = models.JSONField(
        default=dict, blank=True, help_text="Fields of the source record with no column of their own, kept for export."
    )

    class Meta:
        ordering = ["dataset", "context__position", "position", "pk"]
        constraints = [models.UniqueConstraint(fields=["dataset", "key"], name="question_key_unique_in_dataset")]
        indexes = [models.Index(fields=["dataset", "status"])]

    def __str__(self) -> str:
        return f"{self.dataset.name}/{self.key}"


class TextPair(models.Model):
    dataset = models.ForeignKey(Dataset, on_delete=models.CASCADE, related_name="pairs")
    key = models.CharField(max_length=200, help_text="Identifier of the pair, unique within its dataset.")
    position = models.PositiveIntegerField(default=0, help_text="Order within the dataset, as imported.")
    text_a = models.TextField(help_text="First text.")
    text_b = models.TextField(help_text="Second text.")
    label = models.SmallIntegerField(
        null=True, blank=True, help_text="1 = paraphrase / similar, 0 = not; empty if unknown."
    )
    score = models.FloatField(
        null=True, blank=True, help_text="Gold similarity score where the source has one (STS: 0-5)."
    )
    metadata = models.JSONField(
        default=dict, blank=True, help_text="Fields of the source record with no column of their own, kept for export."
    )

    class Meta:
        ordering = ["dataset", "position", "pk"]
        constraints = [
            models.UniqueConstraint(fields=["dataset", "key"], name="pair_key_unique_in_dataset"),
            models.CheckConstraint(condition=Q(label__isnull=True) | Q(label__in=[0, 1]), name="pair_label_binary"),
        ]

    def __str__(self) -> str:
        return f"{self.dataset.name}/{self.key}"
