"""Annotation: work items handed out with leases, blind reviews and TAU labels, consensus, calibration,
and the audit trail.

A work item (a question to review, a TAU item to label) is claimed by up to ``overlap`` annotators, one
assignment each; the database refuses a second assignment of one item to one annotator."""

from django.conf import settings
from django.db import models
from django.db.models import Q

from evalplatform.corpus.models import Question
from evalplatform.runs.models import Generation
from scoring.models import ErrorTypeJudgement, GraphScore

# Two annotators validate each question independently, then reach consensus (CDK-E, Context Is King §3.2).
REVIEW_OVERLAP = 2
# Three annotators label the aligned triplet pairs of each TAU item (S3KG/TAU, Arumugam et al. §5).
TAU_OVERLAP = 3


class ItemState(models.TextChoices):
    OPEN = "open", "Open: still needs annotations"
    COMPLETE = "complete", "Complete: every slot submitted"
    NEEDS_DECISION = "needs_decision", "Complete, waiting for a consensus decision"
    DECIDED = "decided", "Decided"


class AssignmentStatus(models.TextChoices):
    CLAIMED = "claimed", "Claimed (lease running or expired but not yet reclaimed)"
    SUBMITTED = "submitted", "Submitted"
    EXPIRED = "expired", "Expired: the lease ran out and the slot was given to someone else"


class WorkItem(models.Model):
    overlap = models.PositiveSmallIntegerField(help_text="How many annotators must submit this item.")
    state = models.CharField(max_length=16, choices=ItemState.choices, default=ItemState.OPEN)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        abstract = True


class Assignment(models.Model):
    annotator = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    status = models.CharField(max_length=10, choices=AssignmentStatus.choices, default=AssignmentStatus.CLAIMED)
    claimed_at = models.DateTimeField(auto_now_add=True)
    lease_expires_at = models.DateTimeField(help_text="After this another annotator may take the slot.")
    submitted_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        abstract = True


class ReviewItem(WorkItem):
    """A CDK-E question queued for two blind reviews."""

    question = models.OneToOneField(Question, on_delete=models.CASCADE, related_name="review_item")
    draft_ground_truth = models.TextField(blank=True, help_text="The question's ground truth when it was queued.")

    class Meta:
        ordering = ["pk"]
        constraints = [models.CheckConstraint(condition=Q(overlap__gte=1), name="review_item_overlap_positive")]

    def __str__(self) -> str:
        return f"review item {self.pk} ({self.question_id}, {self.state})"


class ReviewAssignment(Assignment):
    item = models.ForeignKey(ReviewItem, on_delete=models.CASCADE, related_name="assignments")

    class Meta:
        ordering = ["pk"]
        constraints = [
            models.UniqueConstraint(fields=["item", "annotator"], name="review_assignment_once_per_annotator")
        ]
        indexes = [models.Index(fields=["annotator", "status"])]

    def __str__(self) -> str:
        return f"review assignment {self.pk} item {self.item_id} to {self.annotator_id} ({self.status})"


class Review(models.Model):
    """One annotator's verdict on one question."""

    assignment = models.OneToOneField(ReviewAssignment, on_delete=models.CASCADE, related_name="review")
    context_coherent = models.BooleanField(help_text="The divergent context reads as a coherent text.")
    question_valid = models.BooleanField(
        help_text="The question is coherent and answerable only from the divergent context."
    )
    ground_truth = models.TextField(blank=True, help_text="The answer the divergent context gives.")
    comment = models.TextField(blank=True)
    submitted_at = models.DateTimeField(auto_now_add=True)

    def __str__(self) -> str:
        return f"review {self.pk} coherent={self.context_coherent} valid={self.question_valid}"

    @property
    def accepts(self) -> bool:
        return self.context_coherent and self.question_valid


class Consensus(models.Model):
    """One consensus decision on a question; a new row per decision, the highest version wins."""

    class Decision(models.TextChoices):
        VALIDATED = "validated", "Validated"
        REJECTED = "rejected", "Rejected"

    question = models.ForeignKey(Question, on_delete=models.CASCADE, related_name="consensus_decisions")
    version = models.PositiveIntegerField(help_text="1 for the first decision, then 2, 3...")
    decision = models.CharField(max_length=10, choices=Decision.choices)
    ground_truth = models.TextField(blank=True, help_text="The final ground truth (empty when rejected).")
    previous_ground_truth = models.TextField(blank=True, help_text="The question's ground truth before.")
    decided_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
        help_text="Who decided; empty when the automatic rule decided.",
    )
    rule = models.CharField(max_length=80, help_text="auto-agree, auto-both-reject or manual.")
    details = models.JSONField(default=dict, blank=True, help_text="Cosine, key facts and the reviews compared.")
    decided_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["question", "-version"]
        constraints = [models.UniqueConstraint(fields=["question", "version"], name="consensus_version_unique")]

    def __str__(self) -> str:
        return f"consensus v{self.version} on {self.question_id}: {self.decision}"


class TauItem(WorkItem):
    """Gold and answer triplets (a JSON snapshot of [head, relation, tail] lists) for three blind labels."""

    gold = models.JSONField(help_text="Gold triplets: a list of [head, relation, tail].")
    answer = models.JSONField(help_text="Answer triplets: a list of [head, relation, tail].")
    generation = models.ForeignKey(
        Generation, null=True, blank=True, on_delete=models.SET_NULL, related_name="tau_items"
    )
    graph_score = models.ForeignKey(
        GraphScore, null=True, blank=True, on_delete=models.SET_NULL, related_name="tau_items"
    )

    class Meta:
        ordering = ["pk"]
        constraints = [models.CheckConstraint(condition=Q(overlap__gte=1), name="tau_item_overlap_positive")]

    def __str__(self) -> str:
        return f"tau item {self.pk} ({len(self.answer)} answer / {len(self.gold)} gold triplets)"


class TauAssignment(Assignment):
    item = models.ForeignKey(TauItem, on_delete=models.CASCADE, related_name="assignments")

    class Meta:
        ordering = ["pk"]
        constraints = [models.UniqueConstraint(fields=["item", "annotator"], name="tau_assignment_once_per_annotator")]
        indexes = [models.Index(fields=["annotator", "status"])]

    def __str__(self) -> str:
        return f"tau assignment {self.pk} item {self.item_id} to {self.annotator_id} ({self.status})"


class TauLabel(models.Model):
    """One annotator's alignment of one TAU item.

    ``aligned`` is a list of [answer index, gold index]; ``answer_errors`` and ``gold_errors`` map the index
    (as a string) of every triplet left unaligned to its error type."""

    class ErrorType(models.TextChoices):
        RELATION_WRONG = "relation_wrong", "Relation wrong"
        ENTITY_WRONG = "entity_wrong", "Entity wrong"
        EXTRA = "extra", "Extra (answer only)"
        MISSING = "missing", "Missing (gold only)"

    assignment = models.OneToOneField(TauAssignment, on_delete=models.CASCADE, related_name="label")
    aligned = models.JSONField(default=list)
    answer_errors = models.JSONField(default=dict)
    gold_errors = models.JSONField(default=dict)
    comment = models.TextField(blank=True)
    submitted_at = models.DateTimeField(auto_now_add=True)

    def __str__(self) -> str:
        return f"tau label {self.pk} ({len(self.aligned)} aligned)"


class CalibrationItem(models.Model):
    """A generation queued for human LAV / Acc / Cm labels, to calibrate the judges."""

    generation = models.OneToOneField(Generation, on_delete=models.CASCADE, related_name="calibration_item")
    seed = models.IntegerField(help_text="Seed of the sample that drew it.")
    queued_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    queued_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["pk"]

    def __str__(self) -> str:
        return f"calibration item {self.pk} (generation {self.generation_id})"


class CalibrationLabel(models.Model):
    """One annotator's LAV / Acc / Cm for one generation, on the judges' scales."""

    item = models.ForeignKey(CalibrationItem, on_delete=models.CASCADE, related_name="labels")
    annotator = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    lav = models.PositiveSmallIntegerField(help_text="1 valid, 0 not valid.")
    acc = models.FloatField(help_text="Accuracy on 0, 0.25, 0.5, 0.75, 1.")
    cm = models.FloatField(help_text="Completeness on 0, 0.25, 0.5, 0.75, 1.")
    error_type = models.CharField(
        max_length=24,
        blank=True,
        choices=ErrorTypeJudgement.Label.choices,
        help_text="Why a not-valid answer is wrong (paper C's error analysis); empty for a valid one.",
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["pk"]
        constraints = [
            models.UniqueConstraint(fields=["item", "annotator"], name="calibration_label_once_per_annotator"),
            models.CheckConstraint(condition=Q(lav__in=[0, 1]), name="calibration_lav_binary"),
            models.CheckConstraint(
                condition=Q(acc__in=[0, 0.25, 0.5, 0.75, 1]) & Q(cm__in=[0, 0.25, 0.5, 0.75, 1]),
                name="calibration_scale_in_quarters",
            ),
            models.CheckConstraint(
                condition=Q(lav=0) | Q(error_type=""), name="calibration_error_type_only_if_invalid"
            ),
        ]

    def __str__(self) -> str:
        return f"calibration label lav={self.lav} acc={self.acc} cm={self.cm}"
