"""Reads of the corpus."""

from dataclasses import dataclass

from django.db.models import Count, Exists, OuterRef, Q, QuerySet

from evalplatform.corpus.models import Alteration, Dataset
from evalplatform.roles import AnyUser, is_admin, is_researcher


def dataset_counts(dataset: Dataset) -> dict[str, int]:
    return {
        "contexts": dataset.contexts.count(),
        "questions": dataset.questions.count(),
        "alterations": Alteration.objects.filter(context__dataset=dataset).count(),
        "pairs": dataset.pairs.count(),
    }


@dataclass(frozen=True)
class DatasetRow:
    dataset: Dataset
    n_contexts: int
    n_questions: int
    n_pairs: int

    @property
    def name(self) -> str:
        return self.dataset.name


def datasets_with_counts(datasets: QuerySet[Dataset]) -> list[DatasetRow]:
    """These datasets with their counts, one query per count kind rather than a multiplying join (and by primary
    key, so that the join a scoped queryset makes to project members cannot multiply a count either)."""
    scoped = Dataset.objects.filter(pk__in=datasets.values("pk"))
    contexts = dict(scoped.annotate(n=Count("contexts")).values_list("pk", "n"))
    questions = dict(scoped.annotate(n=Count("questions")).values_list("pk", "n"))
    pairs = dict(scoped.annotate(n=Count("pairs")).values_list("pk", "n"))
    return [
        DatasetRow(dataset=d, n_contexts=contexts[d.pk], n_questions=questions[d.pk], n_pairs=pairs[d.pk])
        for d in scoped.order_by("name")
    ]


def dataset_list_with_counts(*, user: AnyUser) -> list[DatasetRow]:
    """The datasets ``user`` sees (as the datasets page: ``datasets_visible_to``), with their counts."""
    return datasets_with_counts(datasets_visible_to(user))


def datasets_visible_to(user: AnyUser) -> QuerySet[Dataset]:
    """Admins see every dataset; researchers those of their projects and those they imported; others none."""
    if is_admin(user):
        return Dataset.objects.all()
    if is_researcher(user):
        return Dataset.objects.filter(Q(project__members=user) | Q(created_by=user)).distinct()
    return Dataset.objects.none()


def latest_versions(datasets: QuerySet[Dataset]) -> QuerySet[Dataset]:
    """Only the latest version of each name among ``datasets``."""
    newer = Dataset.objects.filter(name=OuterRef("name"), version__gt=OuterRef("version"))
    return datasets.filter(~Exists(newer))


def dataset_get(*, user: AnyUser, name: str, version: int | None = None) -> Dataset | None:
    """The version ``version`` of a dataset the user sees, or its latest version they see."""
    found = datasets_visible_to(user).filter(name=name)
    if version is not None:
        found = found.filter(version=version)
    return found.order_by("-version").first()


def dataset_versions(*, user: AnyUser, name: str) -> QuerySet[Dataset]:
    """The versions of a name that the user sees, newest first."""
    return datasets_visible_to(user).filter(name=name).select_related("created_by").order_by("-version")
