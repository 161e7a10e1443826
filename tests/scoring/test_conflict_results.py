"""The knowledge-conflict figures of a run (``scoring.cdke.conflict_results``) on a hand-built run.

Dataset (two contexts, four questions):

- c0 alters "1889" -> "1901" and "Paris" -> "Lyon".
  q0: ground truth "In 1901.", no original answer: the alteration whose divergent words appear in the ground truth
  is 1889 -> 1901, so divergent markers {1901}, original markers {1889}; kind date, distance 12 years (bin 10-50y).
  q1: ground truth "Lyon", original answer "Paris": markers {lyon} / {paris}; kind name.
- c1 alters "25" -> "50" (three or four bare digits would read as a year).
  q2: ground truth "50 metres": markers {50} / {25}; kind number, distance ln 2 (bin x2-5, lower bound included).
  q3: ground truth "It is tall.", original "It is not tall.": "not" is a stop word, both marker sets are empty:
  unverified.

Answers at T = 0.2 (closed book -> divergent context):

- model A: q0 "It was finished in 1889." (knows) -> "1901" (followed); q1 "Paris" (knows) -> "Paris" (reverted);
  q2 "I don't know." (does not know) -> "50 metres" (followed); q3 "It is tall." (unverified) -> "It is tall."
  (unclassified). Priors: knows 2, does_not_know 1, believes_other 0, unverified 1.
  Context-following: all items 2 followed / 3 classified = 2/3; conflict only (q0, q1) 1/2.
  M_R all = reverted / (reverted + followed) = 1 / (1 + 2) = 1/3; conflict only = 1 / (1 + 1) = 1/2.
  Preference by kind, conflict only: date (q0) 1/1 = 1.0; name (q1) 0/1 = 0.0; number none (q2 is no conflict).
  Also at T = 0.7: q0 "In 1889." (reverted) with no closed-book answer at 0.7: paired with the one at 0.2
  ("knows"), so its group has M_R = 1/1 = 1.0 and one answer paired at another temperature.
- model B: q0 "1901" (believes_other: it already holds the substituted value) -> "1901" (followed); q1 "Paris"
  (knows) -> "Lyon" (followed); q2 "25" (knows) -> "25 metres" (reverted); q3 no closed-book answer ->
  "It is tall." (unverified, counted as without a closed-book answer).
  Priors: knows 2, believes_other 1, unverified 1. Following all 2/3, conflict only (q1, q2) 1/2.
  M_R all 1/3, conflict 1/2. Preference by kind (conflict): name 1.0, number 0.0 (bin x2-5: 0.0, n 1).
- Paired A vs B on conflict items at (divergent, 0.2): A {q0: 1, q1: 0}, B {q1: 1, q2: 0}; shared q1 only, where
  B followed and A did not: n_shared 1, a_higher 0, b_higher 1, McNemar exact p = min(1, 2 * 0.5^1) = 1.0.
- model C, two samples of q0: closed book sample 0 "1889" (knows), sample 1 "No idea." (does not know); divergent
  both "1901" (followed). Pairing by sample gives priors knows 1, does_not_know 1 and conflict-only following 1/1
  (n 1); pairing both with the first closed-book answer would give n 2.
"""

from __future__ import annotations

import math
from typing import Any

import pytest

from evalplatform.corpus.models import Alteration, Context, Dataset, Project, Question
from evalplatform.runs.models import Generation, ModelEndpoint, Run
from scoring.cdke.conflict_results import NO_CLOSED_BOOK, conflict_results

pytestmark = pytest.mark.django_db


def _dataset() -> tuple[Dataset, list[Question]]:
    project = Project.objects.create(name="conflict")
    dataset = Dataset.objects.create(name="conflict-mini", kind=Dataset.Kind.DKD, project=project)
    c0 = Context.objects.create(dataset=dataset, key="c0", position=0, text="finished in 1901 in Lyon", source_text="")
    Alteration.objects.create(context=c0, position=0, field="date", original="1889", divergent="1901")
    Alteration.objects.create(context=c0, position=1, field="place", original="Paris", divergent="Lyon")
    c1 = Context.objects.create(dataset=dataset, key="c1", position=1, text="it is 50 metres tall", source_text="")
    Alteration.objects.create(context=c1, position=0, field="height", original="25", divergent="50")
    specs = [
        (c0, "In 1901.", ""),
        (c0, "Lyon", "Paris"),
        (c1, "50 metres", ""),
        (c1, "It is tall.", "It is not tall."),
    ]
    questions = [
        Question.objects.create(
            dataset=dataset,
            context=context,
            key=f"q{i}",
            position=i,
            text=f"question {i}?",
            ground_truth=truth,
            original_answer=original,
            status=Question.Status.VALIDATED,
        )
        for i, (context, truth, original) in enumerate(specs)
    ]
    return dataset, questions


def _endpoint(name: str) -> ModelEndpoint:
    return ModelEndpoint.objects.create(
        name=name, provider="openai_compatible", model_id=name, base_url="http://127.0.0.1:9/v1"
    )


def _run(dataset: Dataset, conditions: list[str]) -> Run:
    return Run.objects.create(
        kind=Run.Kind.CDKE,
        dataset=dataset,
        status=Run.Status.DONE,
        spec={"models": ["A", "B", "C"], "temperatures": [0.2, 0.7], "conditions": conditions, "samples": 2},
        progress_total=1,
        progress_done=1,
    )


def _answer(run: Run, q: Question, model: ModelEndpoint, condition: str, text: str, t: float = 0.2, s: int = 0) -> None:
    Generation.objects.create(
        run=run,
        question=q,
        model=model,
        temperature=t,
        condition=condition,
        sample_index=s,
        status=Generation.Status.DONE,
        text=text,
    )


@pytest.fixture
def hand_run() -> Run:
    dataset, q = _dataset()
    a, b, c = _endpoint("A"), _endpoint("B"), _endpoint("C")
    run = _run(dataset, ["none", "divergent"])
    for question, closed, given in zip(
        q,
        ["It was finished in 1889.", "Paris", "I don't know.", "It is tall."],
        ["1901", "Paris", "50 metres", "It is tall."],
        strict=True,
    ):
        _answer(run, question, a, "none", closed)
        _answer(run, question, a, "divergent", given)
    _answer(run, q[0], a, "divergent", "In 1889.", t=0.7)
    for question, closed in zip(q[:3], ["1901", "Paris", "25"], strict=True):
        _answer(run, question, b, "none", closed)
    for question, given in zip(q, ["1901", "Lyon", "25 metres", "It is tall."], strict=True):
        _answer(run, question, b, "divergent", given)
    _answer(run, q[0], c, "none", "1889", s=0)
    _answer(run, q[0], c, "none", "No idea.", s=1)
    _answer(run, q[0], c, "divergent", "1901", s=0)
    _answer(run, q[0], c, "divergent", "1901", s=1)
    # A failed answer is no answer: it neither enters the figures nor serves as a closed-book prior.
    failed = Generation.objects.create(
        run=run, question=q[1], model=c, temperature=0.2, condition="none", status=Generation.Status.FAILED, text=""
    )
    assert failed.pk
    return run


def _rows(run: Run) -> dict[tuple[str, str, float], Any]:
    results = conflict_results(run)
    assert results.reason is None
    return {(r.model, r.condition, r.temperature): r for r in results.rows}


def test_prior_classes_following_and_memorisation_ratio_by_hand(hand_run: Run) -> None:
    rows = _rows(hand_run)
    assert set(rows) == {
        ("A", "divergent", 0.2),
        ("A", "divergent", 0.7),
        ("B", "divergent", 0.2),
        ("C", "divergent", 0.2),
    }
    a = rows[("A", "divergent", 0.2)]
    assert a.following.priors == {"knows_original": 2, "does_not_know": 1, "believes_other": 0, "unverified": 1}
    assert a.n_answers == 4 and a.n_paired_exact == 4 and a.n_paired_other == 0 and a.n_without_closed_book == 0
    assert a.following.unclassified == 1
    assert math.isclose(a.following.all_items.value, 2 / 3) and a.following.all_items.n == 3
    assert a.following.conflict_only.value == 0.5 and a.following.conflict_only.n == 2
    assert math.isclose(a.memorisation_all.ratio.value, 1 / 3)
    assert (a.memorisation_all.counts.followed, a.memorisation_all.counts.reverted) == (2, 1)
    assert a.memorisation_conflict.ratio.value == 0.5
    for estimate in (a.following.all_items, a.following.conflict_only, a.memorisation_all.ratio):
        assert (
            estimate.low is not None and estimate.high is not None and estimate.low <= estimate.value <= estimate.high
        )
    kinds = a.preference_by_kind
    assert kinds["date"].rate.value == 1.0 and kinds["name"].rate.value == 0.0
    assert kinds["number"].rate.value is None and kinds["number"].rate.reason == "no answer takes a side"
    date_bins = {b.label: b.preference.rate.value for b in a.preference_by_date_distance}
    assert date_bins["10-50y"] == 1.0 and date_bins["<1y"] is None

    b = rows[("B", "divergent", 0.2)]
    assert b.following.priors == {"knows_original": 2, "does_not_know": 0, "believes_other": 1, "unverified": 1}
    assert b.n_without_closed_book == 1 and b.n_paired_exact == 3
    assert b.following.conflict_only.value == 0.5
    assert math.isclose(b.memorisation_all.ratio.value, 1 / 3) and b.memorisation_conflict.ratio.value == 0.5
    assert b.preference_by_kind["name"].rate.value == 1.0 and b.preference_by_kind["number"].rate.value == 0.0
    number_bins = {x.label: (x.preference.rate.value, x.preference.rate.n) for x in b.preference_by_number_distance}
    assert number_bins["x2-5"] == (0.0, 1)

    later = rows[("A", "divergent", 0.7)]
    assert later.n_paired_exact == 0 and later.n_paired_other == 1
    assert later.following.priors["knows_original"] == 1 and later.memorisation_all.ratio.value == 1.0


def test_closed_book_answers_pair_by_sample(hand_run: Run) -> None:
    c = _rows(hand_run)[("C", "divergent", 0.2)]
    assert c.following.priors["knows_original"] == 1 and c.following.priors["does_not_know"] == 1
    assert c.following.conflict_only.value == 1.0 and c.following.conflict_only.n == 1
    assert c.n_paired_exact == 2


def test_paired_comparison_between_models_on_shared_conflict_items(hand_run: Run) -> None:
    pairs = {
        (p.model_a, p.model_b, p.condition, p.temperature): p.comparison for p in conflict_results(hand_run).comparisons
    }
    ab = pairs[("A", "B", "divergent", 0.2)]
    assert ab.test == "mcnemar_exact"
    assert (ab.n_shared, ab.a_higher, ab.b_higher, ab.only_a, ab.only_b) == (1, 0, 1, 1, 1)
    assert ab.p_value == 1.0 and ab.difference.value == -1.0
    assert ("A", "B", "divergent", 0.7) not in pairs  # B has no answer at 0.7


def test_a_run_without_closed_book_answers_gives_the_reason_not_zeros() -> None:
    dataset, q = _dataset()
    a = _endpoint("A")
    run = _run(dataset, ["divergent", "real"])
    _answer(run, q[0], a, "divergent", "1901")
    results = conflict_results(run)
    assert results.reason == NO_CLOSED_BOOK
    assert "launch with the `none` condition" in results.reason
    assert results.rows == [] and results.comparisons == []
    assert results.as_json()["reason"] == NO_CLOSED_BOOK


def test_the_json_is_strict(hand_run: Run) -> None:
    from evalplatform import strict_json

    data = conflict_results(hand_run).as_json()
    text = strict_json.dumps(data)  # no NaN, no infinity
    assert '"knows_original": 2' in text
    row = next(r for r in data["rows"] if r["model"] == "A" and r["temperature"] == 0.2)
    assert row["memorisation_conflict"]["ratio"]["value"] == 0.5
    assert data["comparisons"][0]["comparison"]["test"] == "mcnemar_exact"


def test_results_are_kept_and_read_back_the_same(hand_run: Run) -> None:
    first = conflict_results(hand_run)
    second = conflict_results(hand_run)  # from the snapshot
    assert first.as_json() == second.as_json()
