"""Knowledge-conflict figures of a CDK-E run (reads only): issue 17, items 1 and 2.

Each answer given with a context (condition ``divergent`` or ``real``) is paired with the same model's closed-book
answer to the same question (condition ``none``): at the same temperature and sample where the run has it, else
at the same temperature (its first sample), else any closed-book answer of that model to that question (lowest
temperature, then sample). The pairing counts travel with each row. The question gives the item's facts (ground
truth, ``original_answer``, its context's alterations), as ``scoring.error_classes`` and
``scoring.cdke.results.generation_classes`` read them; ``scoring.conflict.observe`` classes the prior and the
answer. Per model, condition and temperature: the count of each prior class, context-following on all items and
where the conflict exists, the memorisation ratio (all and conflict-only), context preference by kind of
alteration and by distance (conflict-only), each with its bootstrap interval; and, per condition and temperature,
a paired comparison of every two models' context-following on the conflict items both have (McNemar's exact test).

Under ``real`` the context states the original fact: "followed" there still means the substituted (divergent)
fact, which that context does not give, so the real condition is a control (its following should be near 0).

Items are (question, sample) pairs: several samples of one question are several items (they are not
independent; the intervals are then too narrow). Only finished answers enter; a failed closed-book answer is no
prior. Rules and limits: docs/conflict_and_judges.md."""

from __future__ import annotations

import itertools
from collections import defaultdict
from dataclasses import asdict, dataclass
from typing import Any

from evalplatform.corpus.models import Alteration
from evalplatform.runs.models import Generation, Run
from scoring.conflict import (
    ConflictObservation,
    ContextFollowing,
    ItemFacts,
    MemorisationRatio,
    PreferenceBin,
    PreferenceRate,
    context_following,
    context_preference_by_distance,
    context_preference_by_kind,
    followed_by_item,
    memorisation_ratio,
    observe,
    with_conflict,
)
from scoring.snapshots import run_snapshot
from scoring.stats import PairedComparison, paired_comparison

CLOSED_BOOK = "none"
CONTEXT_CONDITIONS = ("divergent", "real")
NO_CLOSED_BOOK = "no closed-book answers: launch with the `none` condition"
NO_CLOSED_BOOK_YET = "no closed-book answer has finished yet (condition `none`)"
NO_CONTEXT_ANSWERS = "no answer given with a context: launch with the `divergent` (or `real`) condition too"
NOT_ANSWERS = "a similarity benchmark has no answers"
GroupKey = tuple[str, str, float]  # model, condition, temperature


@dataclass
class ConflictRow:
    """One model, condition and temperature. ``n_answers``: finished answers given with the context;
    ``n_paired_exact`` of them paired with the closed-book answer of the same temperature and sample,
    ``n_paired_other`` with another closed-book answer of the model to the question, ``n_without_closed_book``
    with none (their prior is ``unverified``)."""

    model: str
    condition: str
    temperature: float
    n_answers: int
    n_paired_exact: int
    n_paired_other: int
    n_without_closed_book: int
    following: ContextFollowing
    memorisation_all: MemorisationRatio
    memorisation_conflict: MemorisationRatio
    preference_by_kind: dict[str, PreferenceRate]
    preference_by_number_distance: list[PreferenceBin]
    preference_by_date_distance: list[PreferenceBin]


@dataclass
class ModelPair:
    """Two models' context-following on the conflict items both have (each model knew the fact closed-book)."""

    condition: str
    temperature: float
    model_a: str
    model_b: str
    comparison: PairedComparison


@dataclass
class ConflictResults:
    """The page's and the API's figures; ``reason`` says why there are none."""

    run_id: int
    reason: str | None
    rows: list[ConflictRow]
    comparisons: list[ModelPair]

    def as_json(self) -> dict[str, Any]:
        return asdict(self)


def _generations(run: Run) -> list[dict[str, Any]]:
    rows = Generation.objects.filter(run=run, status=Generation.Status.DONE).values(
        "pk",
        "model__name",
        "temperature",
        "condition",
        "sample_index",
        "text",
        "question_id",
        "question__context_id",
        "question__ground_truth",
        "question__original_answer",
    )
    return [dict(r) for r in rows.order_by("pk")]


def _alterations(run: Run) -> dict[int, list[tuple[str, str]]]:
    alterations: dict[int, list[tuple[str, str]]] = defaultdict(list)
    rows = Alteration.objects.filter(context__dataset=run.dataset).order_by("context_id", "position", "pk")
    for context_id, original, divergent in rows.values_list("context_id", "original", "divergent"):
        alterations[context_id].append((original, divergent))
    return alterations


@dataclass
class _Group:
    observations: list[ConflictObservation]
    exact: int = 0
    other: int = 0
    missing: int = 0


def _observations(run: Run) -> dict[GroupKey, _Group]:
    """Every finished answer given with a context, observed against its paired closed-book answer."""
    generations = _generations(run)
    closed: dict[tuple[str, int], list[dict[str, Any]]] = defaultdict(list)
    for g in generations:
        if g["condition"] == CLOSED_BOOK:
            closed[(g["model__name"], g["question_id"])].append(g)
    for answers in closed.values():
        answers.sort(key=lambda g: (g["temperature"], g["sample_index"], g["pk"]))
    alterations = _alterations(run)
    groups: dict[GroupKey, _Group] = {}
    for g in generations:
        if g["condition"] not in CONTEXT_CONDITIONS:
            continue
        group = groups.setdefault((g["model__name"], g["condition"], g["temperature"]), _Group([]))
        candidates = closed.get((g["model__name"], g["question_id"]), [])
        exact = [
            c for c in candidates if (c["temperature"], c["sample_index"]) == (g["temperature"], g["sample_index"])
        ]
        same_t = [c for c in candidates if c["temperature"] == g["temperature"]]
        chosen = exact or same_t or candidates
        prior = chosen[0] if chosen else None
        if prior is None:
            group.missing += 1
        elif exact:
            group.exact += 1
        else:
            group.other += 1
        facts = ItemFacts(
            ground_truth=g["question__ground_truth"],
            original_answer=g["question__original_answer"],
            alterations=tuple(alterations[g["question__context_id"]]),
        )
        item = f"q{g['question_id']}s{g['sample_index']}"
        closed_text = None if prior is None else prior["text"]
        group.observations.append(observe(item, facts, answer=g["text"], closed_book_answer=closed_text))
    return groups


@run_snapshot
def conflict_rows(run: Run) -> list[ConflictRow]:
    """The figures per model, condition and temperature (sorted); none where ``missing_reason`` gives a reason
    (the run's last unit warms every snapshot: a run without closed-book answers costs nothing here)."""
    if missing_reason(run) is not None:
        return []
    rows = []
    for (model, condition, temperature), group in sorted(_observations(run).items()):
        observations = group.observations
        rows.append(
            ConflictRow(
                model=model,
                condition=condition,
                temperature=temperature,
                n_answers=len(observations),
                n_paired_exact=group.exact,
                n_paired_other=group.other,
                n_without_closed_book=group.missing,
                following=context_following(observations),
                memorisation_all=memorisation_ratio(observations),
                memorisation_conflict=memorisation_ratio(with_conflict(observations)),
                preference_by_kind={str(k): v for k, v in context_preference_by_kind(observations).items()},
                preference_by_number_distance=context_preference_by_distance(observations, "number"),
                preference_by_date_distance=context_preference_by_distance(observations, "date"),
            )
        )
    return rows


@run_snapshot
def conflict_comparisons(run: Run) -> list[ModelPair]:
    """Every two models (in name order) under each condition and temperature both answered: context-following
    on the conflict items both have, paired (``scoring.stats.paired_comparison``: McNemar's exact test)."""
    if missing_reason(run) is not None:
        return []
    groups = _observations(run)
    cells: dict[tuple[str, float], dict[str, list[ConflictObservation]]] = defaultdict(dict)
    for (model, condition, temperature), group in groups.items():
        cells[(condition, temperature)][model] = group.observations
    pairs = []
    for (condition, temperature), models in sorted(cells.items()):
        for a, b in itertools.combinations(sorted(models), 2):
            comparison = paired_comparison(
                followed_by_item(models[a], conflict_only=True), followed_by_item(models[b], conflict_only=True)
            )
            pairs.append(ModelPair(condition, temperature, a, b, comparison))
    return pairs


def missing_reason(run: Run) -> str | None:
    """Why a run has no conflict figures, or None when it has what they need."""
    if run.kind == Run.Kind.SIMILARITY_BENCHMARK:
        return NOT_ANSWERS
    answers = Generation.objects.filter(run=run)
    if not answers.filter(condition=CLOSED_BOOK, status=Generation.Status.DONE).exists():
        planned = CLOSED_BOOK in (run.spec or {}).get("conditions", [])
        return NO_CLOSED_BOOK_YET if planned or answers.filter(condition=CLOSED_BOOK).exists() else NO_CLOSED_BOOK
    if not answers.filter(condition__in=CONTEXT_CONDITIONS, status=Generation.Status.DONE).exists():
        return NO_CONTEXT_ANSWERS
    return None


def conflict_results(run: Run) -> ConflictResults:
    """The run's conflict figures, or the reason it has none (never zeros in place of missing answers)."""
    reason = missing_reason(run)
    if reason is not None:
        return ConflictResults(run.pk, reason, [], [])
    return ConflictResults(run.pk, None, conflict_rows(run), conflict_comparisons(run))
