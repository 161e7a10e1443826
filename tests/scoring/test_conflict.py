"""Knowledge conflict: prior classes, alteration kinds and distances, M_R and context preference, by hand."""

from __future__ import annotations

import itertools
import math

import pytest

from scoring.conflict import (
    DATE_BIN_LABELS,
    AlterationKind,
    ConflictObservation,
    DateValue,
    ItemFacts,
    PriorClass,
    alteration_distance,
    alteration_kind,
    classify_prior,
    context_following,
    context_preference,
    context_preference_by_distance,
    context_preference_by_kind,
    distance_bin,
    followed_by_item,
    is_abstention,
    is_name,
    memorisation_ratio,
    observe,
    parse_date,
    parse_number,
    with_conflict,
)
from scoring.error_classes import ErrorClass, fact_markers
from scoring.stats import paired_comparison

FACTS = ItemFacts(ground_truth="1950", original_answer="1949")
DIVERGENT, ORIGINAL = FACTS.markers()  # {"1950"}, {"1949"}


@pytest.mark.parametrize(
    ("closed_book", "expected"),
    [
        ("It was 1949.", "knows_original"),
        ("I'm not sure, but I think 1949", "knows_original"),  # a hedge that names only the original
        ("I don't know.", "does_not_know"),
        ("", "does_not_know"),
        ("Unknown", "does_not_know"),
        ("1951", "believes_other"),  # another value
        ("1950", "believes_other"),  # the substituted value, without the context: no conflict
        ("either 1949 or 1950", "believes_other"),  # both versions: not a clear prior
        (None, "unverified"),  # no closed-book answer
    ],
)
def test_classify_prior(closed_book: str | None, expected: str) -> None:
    assert {"1950"} == DIVERGENT and {"1949"} == ORIGINAL
    assert classify_prior(closed_book, DIVERGENT, ORIGINAL) == expected


def test_prior_is_unverified_when_the_facts_give_no_marker() -> None:
    # The two versions differ only by "not" (a stop word) or by word order: the word markers are empty.
    d, o = fact_markers(
        ground_truth="Disney does not have an ice princess.",
        original_answer="Disney has an ice princess.",
        alterations=[],
    )
    assert not d
    assert classify_prior("Disney has an ice princess.", d, o) == "unverified"
    d, o = fact_markers(ground_truth="A seal before a dog.", original_answer="A dog before a seal.", alterations=[])
    assert (d, o) == (set(), set())


def test_is_abstention() -> None:
    assert is_abstention("I do not know the answer.")
    assert is_abstention("I cannot answer that without more information.")
    assert is_abstention("N/A")
    assert is_abstention("The, of.")  # only stop words
    assert not is_abstention("Paris")
    assert not is_abstention("Known as Paris")


def test_parse_date() -> None:
    assert parse_date("1949-03-12") == DateValue(1949, 3, 12)
    assert parse_date("12 March 1949") == DateValue(1949, 3, 12)
    assert parse_date("the 12th of March, 1949") == DateValue(1949, 3, 12)
    assert parse_date("Sept. 3, 1939") == DateValue(1939, 9, 3)
    assert parse_date("March 1949") == DateValue(1949, 3)
    assert parse_date("in 1949") == DateValue(1949)
    assert parse_date("44 BC") == DateValue(-44)
    assert parse_date("AD 79") == DateValue(79)
    assert parse_date("the 1949 season") is None  # a year inside a phrase is not a date
    assert parse_date("12") is None  # nor is a bare two-digit number
    assert parse_date("February 30, 1949") is None


def test_parse_number() -> None:
    assert parse_number("7,779 inhabitants") == 7779.0
    assert parse_number("-3.5 degrees") == -3.5
    assert parse_number("12%") == 12.0
    assert parse_number("the 3rd battalion") == 3.0
    assert parse_number("3 million") == 3e6
    assert parse_number("4.5 billion years") == 4.5e9
    assert parse_number("twenty-five") == 25.0
    assert parse_number("two hundred and fifty") == 250.0
    assert parse_number("three thousand two hundred") == 3200.0
    assert parse_number("a million") == 1e6
    assert parse_number("between 3 and 5") is None  # two numbers
    assert parse_number("1,500 soldiers in 1949") is None
    assert parse_number("no figure here") is None


def test_is_name() -> None:
    assert is_name("Paris")
    assert is_name("Leonardo da Vinci")
    assert is_name("Jean-Paul Sartre")
    assert is_name("J. R. R. Tolkien")
    assert is_name("the United States")
    assert is_name("Stacey Short, Natalie Mejia, and Jessica Smith")
    assert not is_name("a red car")
    assert not is_name("Apollo 11")
    assert not is_name("of Arc")


@pytest.mark.parametrize(
    ("original", "divergent", "kind"),
    [
        ("1949", "1950", "date"),
        ("12 March 1949", "March 14, 1950", "date"),
        ("7,779 inhabitants", "12,000 inhabitants", "number"),
        ("three", "five", "number"),
        ("1,500 soldiers", "1949", "number"),  # a bare year beside a count: both are numbers
        ("Paris", "Lyon", "name"),
        ("Heather Davis", "Joyce Summers", "name"),
        ("a red car", "a blue car", "other"),
        ("between 3 and 5", "7", "other"),
        ("1949", "Lyon", "other"),
        # The value must be what changed, in a short span:
        ("Founded in March 1900 by Smith", "Founded in March 1900 by Jones", "other"),  # same date, name changed
        ("John Logie Baird in 1944", "Nicole Ford in 1962", "other"),  # the words around the year swapped too
        ("Eric Clapton had similar taste to one of the Beatles", "Eric Clapton did not like one of them", "other"),
        ("The show was canceled by CBS on May 24, 2018.", "October 12, 2024", "date"),
        ("18 years of age or older", "25 years old", "number"),
    ],
)
def test_alteration_kind(original: str, divergent: str, kind: str) -> None:
    assert alteration_kind(original, divergent) == kind


def test_alteration_distance() -> None:
    assert alteration_distance("1949", "1950") == 1.0
    assert alteration_distance("March 1949", "May 1950") == pytest.approx(14 / 12)
    assert alteration_distance("12 March 1949", "12 March 1950") == pytest.approx(365 / 365.2425)
    assert alteration_distance("44 BC", "AD 79") == 123.0  # the missing year 0 is not corrected for (historians: 122)
    assert alteration_distance("7,779", "15,558") == pytest.approx(math.log(2))
    assert alteration_distance("15,558", "7,779") == pytest.approx(math.log(2))  # halving is as far as doubling
    assert alteration_distance("three", "thirty") == pytest.approx(math.log(10))
    assert alteration_distance("0", "5") is None
    assert alteration_distance("-3", "3") is None
    assert alteration_distance("Paris", "Lyon") is None


def test_distance_bins() -> None:
    edges = (0.0, 1.0, 5.0)
    assert [distance_bin(d, edges) for d in (0.0, 0.99, 1.0, 4.9, 5.0, 1e6)] == [0, 0, 1, 1, 2, 2]
    with pytest.raises(ValueError):
        distance_bin(-0.1, edges)


_IDS = itertools.count(1)


def _obs(
    prior: PriorClass, answer: ErrorClass | None, kind: AlterationKind = "other", distance: float | None = None
) -> ConflictObservation:
    return ConflictObservation(next(_IDS), prior, answer, kind, distance)


def _sample() -> list[ConflictObservation]:
    # Four items where the model knew the original (the conflict exists): 1 followed, 3 reverted;
    # six where it did not: 4 followed, 2 neither; one unverified item with no class.
    return [
        _obs("knows_original", "followed_context", "date", 0.5),
        _obs("knows_original", "reverted_to_prior", "date", 30.0),
        _obs("knows_original", "reverted_to_prior", "number", math.log(3)),
        _obs("knows_original", "reverted_to_prior", "number", None),
        *[_obs("does_not_know", "followed_context") for _ in range(2)],
        *[_obs("believes_other", "followed_context") for _ in range(2)],
        *[_obs("believes_other", "neither") for _ in range(2)],
        _obs("unverified", None),
    ]


def test_memorisation_ratio_by_hand() -> None:
    result = memorisation_ratio(_sample(), seed=4)
    # Classified 10: original (reverted) 3, substituted (followed) 5, neither 2: p_o = 0.3, p_s = 0.5,
    # M_R = 0.3 / (0.3 + 0.5) = 3/8.
    assert (result.counts.reverted, result.counts.followed, result.counts.neither) == (3, 5, 2)
    assert result.counts.unclassified == 1
    assert result.p_o == pytest.approx(0.3) and result.p_s == pytest.approx(0.5)
    assert result.ratio.value == pytest.approx(3 / 8)
    assert result.ratio.low is not None and result.ratio.high is not None
    assert 0.0 <= result.ratio.low <= 3 / 8 <= result.ratio.high <= 1.0
    # On the conflict items alone: 3 original, 1 substituted: M_R = 3/4.
    assert memorisation_ratio(with_conflict(_sample())).ratio.value == pytest.approx(3 / 4)


def test_memorisation_ratio_is_none_when_no_answer_takes_a_side() -> None:
    result = memorisation_ratio([_obs("knows_original", "neither"), _obs("unverified", None)])
    assert result.p_o == 0.0 and result.p_s == 0.0
    assert result.ratio.value is None and result.ratio.reason == "p_o + p_s = 0: no answer takes a side"
    assert memorisation_ratio([]).p_o is None


def test_context_following_all_items_and_where_the_conflict_exists() -> None:
    result = context_following(_sample())
    # All classified items: 5 followed of 10 = 0.5. Where the model knew the fact: 1 of 4 = 0.25.
    assert result.all_items.value == pytest.approx(0.5) and result.all_items.n == 10
    assert result.conflict_only.value == pytest.approx(0.25) and result.conflict_only.n == 4
    assert result.priors == {"knows_original": 4, "does_not_know": 2, "believes_other": 4, "unverified": 1}
    assert result.unclassified == 1
    no_conflict = context_following([_obs("does_not_know", "followed_context")])
    assert no_conflict.conflict_only.value is None and no_conflict.conflict_only.reason


def test_context_preference_is_one_minus_mr_on_the_same_answers() -> None:
    conflict = with_conflict(_sample())
    preference = context_preference(conflict)
    assert preference.rate.value == pytest.approx(1 / 4)  # 1 followed of 1 + 3 side-taking answers
    assert preference.rate.value == pytest.approx(1 - memorisation_ratio(conflict).ratio.value)  # type: ignore[operator]


def test_context_preference_by_kind() -> None:
    by_kind = context_preference_by_kind(_sample())
    assert list(by_kind) == ["number", "date", "name", "other"]
    assert by_kind["date"].rate.value == pytest.approx(0.5)  # followed 1, reverted 1
    assert by_kind["number"].rate.value == 0.0  # reverted 2
    assert by_kind["name"].rate.value is None and by_kind["name"].rate.reason
    assert by_kind["other"].rate.value is None  # the "other" items are not conflict items
    everything = context_preference_by_kind(_sample(), conflict_only=False)
    assert everything["other"].rate.value == 1.0  # 4 followed, 0 reverted (2 neither are not rated)
    assert everything["other"].counts.neither == 2


def test_context_preference_by_distance() -> None:
    dates = context_preference_by_distance(_sample(), "date")
    assert [b.label for b in dates] == list(DATE_BIN_LABELS)
    assert dates[0].preference.rate.value == 1.0  # 0.5 years: "<1y", followed
    assert dates[3].preference.rate.value == 0.0  # 30 years: "10-50y", reverted
    assert dates[3].low == 10.0 and dates[3].high == 50.0 and dates[-1].high is None
    assert all(dates[i].preference.rate.value is None for i in (1, 2, 4, 5))
    numbers = context_preference_by_distance(_sample(), "number")
    # ln 3 = 1.10 lies in [ln 2, ln 5): "x2-5"; the number item without a distance is left out.
    assert numbers[3].label == "x2-5" and numbers[3].preference.counts.reverted == 1
    assert sum(b.preference.counts.reverted for b in numbers) == 1
    custom = context_preference_by_distance(_sample(), "date", edges=(0.0, 10.0))
    assert [b.label for b in custom] == ["[0, 10)", ">= 10"]
    with pytest.raises(ValueError):
        context_preference_by_distance(_sample(), "name")  # type: ignore[arg-type]


def test_observe_an_item_end_to_end() -> None:
    facts = ItemFacts(
        ground_truth="He was born in 1950.",
        alterations=(("1949", "1950"), ("Paris", "Lyon")),
    )
    # Only the 1949 -> 1950 alteration shows in the ground truth.
    assert facts.altered_pairs() == [("1949", "1950")]
    o = observe("q1", facts, answer="In 1950.", closed_book_answer="1949, in Paris.")
    assert (o.prior, o.answer, o.kind, o.distance) == ("knows_original", "followed_context", "date", 1.0)
    o = observe("q1", facts, answer="It was 1949.", closed_book_answer="No idea.")
    assert (o.prior, o.answer) == ("does_not_know", "reverted_to_prior")
    o = observe("q1", facts, answer=None, closed_book_answer=None)
    assert (o.prior, o.answer) == ("unverified", None)
    unverifiable = ItemFacts(ground_truth="Yes.", original_answer="Yes.")
    assert observe("q2", unverifiable, answer="Yes.", closed_book_answer="Yes.").answer is None


def test_two_models_compared_on_the_items_where_both_knew_the_fact() -> None:
    def obs(item: str, prior: PriorClass, answer: ErrorClass | None) -> ConflictObservation:
        return ConflictObservation(item, prior, answer, "other", None)

    model_a = [
        obs("q1", "knows_original", "followed_context"),
        obs("q2", "knows_original", "followed_context"),
        obs("q3", "knows_original", "reverted_to_prior"),
        obs("q4", "does_not_know", "followed_context"),
    ]
    model_b = [
        obs("q1", "knows_original", "reverted_to_prior"),
        obs("q2", "knows_original", "reverted_to_prior"),
        obs("q3", "knows_original", "neither"),
        obs("q4", "knows_original", "reverted_to_prior"),
    ]
    a = followed_by_item(model_a, conflict_only=True)
    b = followed_by_item(model_b, conflict_only=True)
    assert a == {"q1": 1.0, "q2": 1.0, "q3": 0.0}
    result = paired_comparison(a, b)
    # Shared q1..q3 (A did not know q4): A followed on q1, q2 where B did not: McNemar 2 of 2 discordant,
    # p = 2 * (1/2)^2 = 0.5; difference of means 2/3 - 0 = 2/3.
    assert result.n_shared == 3 and result.only_b == 1
    assert result.difference.value == pytest.approx(2 / 3)
    assert result.test == "mcnemar_exact" and result.p_value == pytest.approx(0.5)
    with pytest.raises(ValueError, match="twice"):
        followed_by_item([model_a[0], model_a[0]])
