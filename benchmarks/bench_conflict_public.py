"""The knowledge-conflict measures (issue 17; ``scoring.conflict``) on the public ConflictQA and ConflictNQ sets.

    .venv/bin/python benchmarks/bench_conflict_public.py [--data ../shared/data] [--n-boot 1000]

Neither set holds a model's answer *given the context*, so no figure here measures how a model behaves; they
measure what the instrument can classify on real conflict data, and check that it gives the bounds it must.
What stands for what:

- **ConflictQA** (StrategyQA part, GPT-4; ``conflictqa_strategyqa_gpt4_balanced_300.jsonl``, 300 items). The
  item's facts: ground truth = ``answer`` (the counter answer, which the counter-memory context supports),
  original answer = ``memory_answer``. The model's prior (its closed-book answer) = ``memory_answer``: GPT-4's
  own closed-book answer, so for GPT-4 the prior classes are measured, not assumed. A second prior, sentence-long:
  ``parametric_memory`` (GPT-4's closed-book evidence paragraph). Answers with the context, two stand-ins: a
  *context reader* that answers ``answer`` and a *memory reader* that answers ``memory_answer``.
- **ConflictNQ** (test split, 226 items). Facts: ground truth = ``answer`` (the fake short answer), original
  answer = ``real_answer``. The prior = ``real_answer`` (short) or ``real_answer_long`` (the real long answer, a
  closed-book answer in sentence form); answers with the context: ``answer`` / ``answer_long`` (a context reader,
  short and in sentence form) and ``real_answer_long`` (a memory reader in sentence form).

With short forms the classes are fixed by construction wherever words tell the two versions apart (context reader:
following 1, M_R 0; memory reader: following 0, M_R 1): what they measure is coverage (how many items are
verifiable, their kinds). The sentence-long forms measure how well the word-marker rule reads answers written as
sentences: a long fake answer that the rule does not class as ``followed_context`` is an instrument miss.
Intervals: 95 % percentile bootstrap over items, seed 0. The product does not read ``../shared``; this script does.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any, Literal

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from scoring.conflict import (
    ALTERATION_KINDS,
    ItemFacts,
    context_following,
    context_preference_by_distance,
    context_preference_by_kind,
    memorisation_ratio,
    observe,
    with_conflict,
)
from scoring.error_classes import words
from scoring.stats import Estimate

DATA = Path(__file__).resolve().parent.parent.parent / "shared" / "data"
CONFLICTQA = Path("conflictqa_strategyqa") / "conflictqa_strategyqa_gpt4_balanced_300.jsonl"
CONFLICTNQ = Path("conflictnq") / "conflictnq_test.jsonl"
Field = Callable[[dict[str, Any]], str]
Facts = Callable[[dict[str, Any]], ItemFacts]


def records(path: Path) -> list[dict[str, Any]]:
    with path.open(encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def fmt(e: Estimate) -> str:
    if e.value is None:
        return f"-    ({e.reason})"
    interval = "" if e.low is None else f" [{e.low:.3f}, {e.high:.3f}]"
    return f"{e.value:.3f}{interval} n {e.n}"


def sides(text: str, facts: ItemFacts) -> str:
    """Which markers a text holds: "both", "divergent", "original" or "none" (why a text is neither / other)."""
    divergent, original = facts.markers()
    said = words(text)
    d, o = bool(said & divergent), bool(said & original)
    return "both" if d and o else "divergent" if d else "original" if o else "none"


def why(rows: list[dict[str, Any]], facts: Facts, text: Field, keep: list[bool]) -> str:
    counts = Counter(sides(text(r), facts(r)) for r, k in zip(rows, keep, strict=True) if k)
    return ", ".join(f"{k} {v}" for k, v in sorted(counts.items()))


def report(title: str, rows: list[dict[str, Any]], facts: Facts, prior: Field, answer: Field, n_boot: int) -> None:
    obs = [observe(r["id"], facts(r), answer=answer(r), closed_book_answer=prior(r)) for r in rows]
    following = context_following(obs, n_boot=n_boot)
    ratio_all = memorisation_ratio(obs, n_boot=n_boot)
    ratio_conflict = memorisation_ratio(with_conflict(obs), n_boot=n_boot)
    counts = ratio_all.counts
    print(f"  {title}")
    print("    priors: " + ", ".join(f"{k} {v}" for k, v in following.priors.items()))
    if following.priors["believes_other"]:
        held = why(rows, facts, prior, [o.prior == "believes_other" for o in obs])
        print(f"      believes_other: the closed-book text holds markers of {held}")
    print(
        f"    answers: followed {counts.followed}, reverted {counts.reverted}, neither {counts.neither}, "
        f"unclassified {counts.unclassified}"
    )
    if counts.neither:
        held = why(rows, facts, answer, [o.answer == "neither" for o in obs])
        print(f"      neither: the answer holds markers of {held}")
    print(f"    context-following  all items {fmt(following.all_items)}")
    print(f"                       conflict only {fmt(following.conflict_only)}")
    print(f"    M_R                all items {fmt(ratio_all.ratio)}")
    print(f"                       conflict only {fmt(ratio_conflict.ratio)}")
    by_kind = context_preference_by_kind(obs, n_boot=n_boot)
    print("    context preference by kind (conflict only):")
    for kind in ALTERATION_KINDS:
        rate = by_kind[kind]
        print(f"      {kind:6} {fmt(rate.rate)}  (followed {rate.counts.followed}, reverted {rate.counts.reverted})")
    scales: tuple[Literal["number", "date"], ...] = ("number", "date")
    for scale in scales:
        bins = [b for b in context_preference_by_distance(obs, scale, n_boot=n_boot) if b.preference.counts.classified]
        if bins:
            text = ", ".join(f"{b.label}: {fmt(b.preference.rate)}" for b in bins)
            print(f"    by distance ({scale}s, conflict only): {text}")


def coverage(rows: list[dict[str, Any]], facts: Facts) -> None:
    verifiable = [r for r in rows if all(facts(r).markers())]
    kinds = Counter(observe(r["id"], facts(r), answer=None, closed_book_answer=None).kind for r in verifiable)
    print(f"  {len(verifiable)} of {len(rows)} items verifiable (both marker sets non-empty)")
    print("  kinds of the verifiable items: " + ", ".join(f"{k} {kinds[k]}" for k in ALTERATION_KINDS))


def conflictqa(path: Path, n_boot: int) -> None:
    rows = records(path)
    print(f"ConflictQA (StrategyQA, GPT-4): {path.name}, {len(rows)} items")
    print("  facts: ground truth = answer (counter answer), original = memory_answer")

    def facts(r: dict[str, Any]) -> ItemFacts:
        return ItemFacts(ground_truth=r["answer"], original_answer=r["memory_answer"])

    coverage(rows, facts)
    memory: Field = lambda r: r["memory_answer"]  # noqa: E731
    counter: Field = lambda r: r["answer"]  # noqa: E731
    evidence: Field = lambda r: r["parametric_memory"]  # noqa: E731
    report(
        "prior = memory_answer; answer = counter answer (context reader)",
        rows,
        facts,
        memory,
        counter,
        n_boot,
    )
    report(
        "prior = memory_answer; answer = memory_answer (memory reader)",
        rows,
        facts,
        memory,
        memory,
        n_boot,
    )
    report(
        "prior = parametric_memory (sentence-long); answer = counter answer",
        rows,
        facts,
        evidence,
        counter,
        n_boot,
    )


def conflictnq(path: Path, n_boot: int) -> None:
    rows = records(path)
    print(f"ConflictNQ: {path.name}, {len(rows)} items")
    print("  facts: ground truth = answer (fake short answer), original = real_answer")

    def facts(r: dict[str, Any]) -> ItemFacts:
        return ItemFacts(ground_truth=r["answer"], original_answer=r["real_answer"])

    coverage(rows, facts)
    real: Field = lambda r: r["real_answer"]  # noqa: E731
    real_long: Field = lambda r: r["real_answer_long"]  # noqa: E731
    fake: Field = lambda r: r["answer"]  # noqa: E731
    fake_long: Field = lambda r: r["answer_long"]  # noqa: E731
    report("prior = real_answer; answer = answer (context reader, short)", rows, facts, real, fake, n_boot)
    report(
        "prior = real_answer_long; answer = answer_long (context reader, sentences)",
        rows,
        facts,
        real_long,
        fake_long,
        n_boot,
    )
    report(
        "prior = real_answer_long; answer = real_answer_long (memory reader, sentences)",
        rows,
        facts,
        real_long,
        real_long,
        n_boot,
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", type=Path, default=DATA)
    parser.add_argument("--n-boot", type=int, default=1000)
    args = parser.parse_args()
    conflictqa(args.data / CONFLICTQA, args.n_boot)
    print()
    conflictnq(args.data / CONFLICTNQ, args.n_boot)


if __name__ == "__main__":
    main()
