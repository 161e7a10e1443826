"""Reads of runs. The scoped ones (``*_visible_to``, ``*_get``) serve every lookup a page or the API makes, so a
researcher never reaches a run of a dataset outside their projects, and annotators reach none; the others serve
the launch and the tasks."""

from django.db.models import Q, QuerySet

from evalplatform.corpus.models import Dataset, Question
from evalplatform.corpus.selectors import datasets_visible_to
from evalplatform.roles import AnyUser, is_admin, is_researcher
from evalplatform.runs.models import Generation, ModelEndpoint, Run
from evalplatform.runs.spec import RunSpec, SpecError
from evalplatform.runs.stages import stages_for


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


def endpoints_named(names: list[str], field_name: str) -> list[ModelEndpoint]:
    """The active endpoints of these names, in the order given; ``SpecError`` on the spec field for a missing one."""
    found = {e.name: e for e in ModelEndpoint.objects.filter(name__in=names, is_active=True)}
    missing = [n for n in names if n not in found]
    if missing:
        raise SpecError(field_name, f"no active model endpoint named '{missing[0]}'")
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
    return Run.objects.filter(pk=run_id, status__in=[Run.Status.QUEUED, Run.Status.RUNNING]).exists()


def run_progress(run: Run) -> tuple[int, int]:
    """(finished units, failed units), summed over the run's stages. A unit is one answer, or one evaluator's
    scoring of an answer, or one answer's graphs; a failed answer fails its later units with it."""
    spec = RunSpec.from_dict(run.spec)
    failed_cells = Generation.objects.filter(run=run, status=Generation.Status.FAILED).order_by().count()
    finished = failed = 0
    for stage in stages_for(spec):
        done, bad = stage.progress(run, spec, failed_cells=failed_cells)
        finished += done
        failed += bad
    return finished, failed


# What the progress shows for each stage: the unit of work and its phase.
PHASES = {"answer": "answering", "judge": "judging", "graphs": "graphs"}


def run_phases(run: Run) -> list[dict[str, object]]:
    """Per stage that counts units (answering, judging, graphs): units done, failed and planned. Each stage reports
    its own counts (``Stage.progress``), the same figures ``run_progress`` sums into the run's progress; planned
    units come from the run's planned total, never from a recount."""
    try:
        spec = RunSpec.from_dict(run.spec)
    except SpecError:
        return []
    stages = [s for s in stages_for(spec) if s.units_per_cell(spec)]
    units_per_cell = sum(s.units_per_cell(spec) for s in stages)
    if not stages or not units_per_cell or run.kind == Run.Kind.SIMILARITY_BENCHMARK:
        return []
    n_cells = run.progress_total // units_per_cell
    failed_cells = Generation.objects.filter(run=run, status=Generation.Status.FAILED).order_by().count()
    phases: list[dict[str, object]] = []
    for stage in stages:
        done, failed = stage.progress(run, spec, failed_cells=failed_cells)
        total = n_cells * stage.units_per_cell(spec)
        phases.append(
            {
                "stage": stage.name,
                "phase": PHASES.get(stage.name, stage.name),
                "done": min(done, total),
                "failed": failed,
                "total": total,
            }
        )
    return phases
