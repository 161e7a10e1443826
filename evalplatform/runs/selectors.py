"""Reads of runs. The scoped ones (``*_visible_to``, ``*_get``) serve every lookup a page or the API makes, so a
researcher never reaches a run of a dataset outside their projects, and annotators reach none; the others serve
the launch and the tasks."""

from django.conf import settings
from django.db.models import F, Q, QuerySet

from evalplatform.corpus.models import Dataset, Question
from evalplatform.corpus.selectors import datasets_visible_to
from evalplatform.llm.redaction import key_env_allowed
from evalplatform.roles import AnyUser, is_admin, is_researcher
from evalplatform.runs.models import ACTIVE_STATUSES, KEY_ENV_REFUSED, Generation, ModelEndpoint, Run, StageProgress
from evalplatform.runs.spec import RunSpec, SpecError


def runs_visible_to(user: AnyUser) -> QuerySet[Run]:
    """Admins see every run; researchers the runs on datasets they see and the runs they launched."""
    if is_admin(user):
        return Run.objects.select_related("dataset", "created_by")
    if is_researcher(user):
        visible = datasets_visible_to(user).values("pk")
        return (
            Run.objects.filter(Q(dataset__in=visible) | Q(created_by=user))
            .select_related("dataset", "created_by")
            .distinct()
        )
    return Run.objects.none()


def run_get(*, user: AnyUser, pk: int) -> Run | None:
    return runs_visible_to(user).filter(pk=pk).first()


def generations_visible_to(user: AnyUser) -> QuerySet[Generation]:
    return Generation.objects.filter(run__in=runs_visible_to(user).values("pk")).select_related(
        "question", "question__context", "model"
    )


def generation_get(*, user: AnyUser, run: Run, pk: int) -> Generation | None:
    return generations_visible_to(user).filter(run=run, pk=pk).first()


def endpoints_for_launch(user: AnyUser) -> QuerySet[ModelEndpoint]:
    """Active endpoints a researcher may pick for a run (imported answers are never called)."""
    if not is_researcher(user):
        return ModelEndpoint.objects.none()
    return ModelEndpoint.objects.filter(is_active=True).exclude(provider=ModelEndpoint.Provider.IMPORTED)


def run_evaluators(spec: RunSpec) -> list[ModelEndpoint]:
    """The run's evaluators by name, active or not: a run launched with an evaluator finishes with it."""
    return list(ModelEndpoint.objects.filter(name__in=spec.evaluators).order_by("name"))


def endpoints_named(names: list[str], field_name: str) -> list[ModelEndpoint]:
    """The active endpoints of these names, in the order given; ``SpecError`` on the spec field for a missing one,
    or one whose api_key_env does not name a key variable (a row written round ModelEndpoint.clean)."""
    found = {e.name: e for e in ModelEndpoint.objects.filter(name__in=names, is_active=True)}
    missing = [n for n in names if n not in found]
    if missing:
        raise SpecError(field_name, f"no active model endpoint named '{missing[0]}'")
    for endpoint in found.values():
        if not key_env_allowed(endpoint.api_key_env, settings.API_KEY_ENV_ALLOWLIST):
            raise SpecError(field_name, f"endpoint '{endpoint.name}': {KEY_ENV_REFUSED}")
    return [found[n] for n in names]


def run_questions(dataset: Dataset, spec: RunSpec) -> QuerySet[Question]:
    """The questions a run asks, in context order so that a context's cells are scheduled together."""
    questions = Question.objects.filter(dataset=dataset).exclude(status=Question.Status.REJECTED)
    if spec.only_validated:
        questions = questions.filter(status=Question.Status.VALIDATED)
    questions = questions.select_related("context").order_by("context__position", "position", "pk")
    if spec.per_context is not None:
        questions = questions.filter(position__lt=spec.per_context)
    if spec.limit is not None:
        questions = questions[: spec.limit]
    return questions


def run_is_active(run_id: int) -> bool:
    return Run.objects.filter(pk=run_id, status__in=ACTIVE_STATUSES).exists()


def stage_complete(*, run_id: int, stage: str) -> bool:
    """Every unit of one stage of the run is finished (by its counter: one query)."""
    return StageProgress.objects.filter(run_id=run_id, stage=stage, done__gte=F("total")).exists()


# What the progress shows for each stage: the unit of work and its phase.
PHASES = {"answer": "answering", "similarity": "similarity (ASS)", "judge": "judging", "graphs": "graphs"}


def run_phases(run: Run) -> list[dict[str, object]]:
    """Per stage: units finished (failed ones included), failed and planned, from the stage's counters (one query,
    never a recount: the runs page polls this every two seconds)."""
    if run.kind == Run.Kind.SIMILARITY_BENCHMARK:
        return []
    return [
        {
            "stage": row.stage,
            "phase": PHASES.get(row.stage, row.stage),
            "done": min(row.done, row.total),
            "failed": row.failed,
            "total": row.total,
        }
        for row in StageProgress.objects.filter(run=run).order_by("pk")
    ]
