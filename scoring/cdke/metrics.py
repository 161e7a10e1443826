"""CDK-E's answer metrics that are arithmetic, not judgement (Piñeiro-Martín et al., "Context Is King",
Applied Sciences 15(3):1192, 2025, section 3.4). Plain Python: no Django, no model calls."""

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass


def statement_f1(tp: int, fp: int, fn: int) -> float | None:
    """FC, the F1 of statements: TP / (TP + 0.5 (FP + FN)). None when there is nothing to compare
    (no statement on either side): such an answer is unscorable, not wrong."""
    if min(tp, fp, fn) < 0:
        raise ValueError("statement counts cannot be negative")
    denominator = tp + 0.5 * (fp + fn)
    return None if denominator == 0 else tp / denominator


def _statement_key(statement: str) -> str:
    """Statements are matched ignoring case and runs of white space (judges re-space and re-case them)."""
    return re.sub(r"\s+", " ", statement).strip().casefold()


def fc_from_verdict(
    answer_statements: Sequence[str], truth_statements: Sequence[str], verdict: Mapping[str, Sequence[str]]
) -> float | None:
    """FC of one answer from a judge's verdict ``{"TP": [...], "FP": [...], "FN": [...]}``, checked against the
    statements extracted for that answer and that ground truth:

    - TP and FP hold answer statements, each at most once in the two lists together; an answer statement left
      in neither counts as FP (the judge did not find it supported);
    - FN holds ground-truth statements, each at most once; with no TP nothing of the ground truth is covered,
      so then every ground-truth statement is FN whatever the list says;
    - anything else is the judge's error and raises ``ValueError``: a statement in no list it may be in
      (invented, or a ground-truth statement under TP / FP, an answer statement under FN: moved), a
      statement listed twice (repeated), or a key other than TP, FP, FN.

    Returns FC = TP / (TP + 0.5 (FP + FN)), or None when both statement lists are empty."""
    if set(verdict) != {"TP", "FP", "FN"}:
        raise ValueError(f"a verdict has exactly the keys TP, FP, FN, not {sorted(verdict)}")
    answer = {_statement_key(s) for s in answer_statements}
    truth = {_statement_key(s) for s in truth_statements}
    seen: set[tuple[str, str]] = set()  # (side, statement): an answer statement once in TP + FP, a truth one in FN
    counts = {"TP": 0, "FP": 0, "FN": 0}
    for key, allowed, side in (("TP", answer, "answer"), ("FP", answer, "answer"), ("FN", truth, "ground-truth")):
        for statement in verdict[key]:
            k = _statement_key(statement)
            if k not in allowed:
                raise ValueError(f"{key} lists {statement!r}, which is not one of the {side} statements")
            if (side, k) in seen:
                raise ValueError(f"{key} lists {statement!r}, which the verdict has classified already")
            seen.add((side, k))
            counts[key] += 1
    tp = counts["TP"]
    fp = len(answer) - tp  # listed under FP or left unclassified
    fn = len(truth) if tp == 0 else counts["FN"]
    return statement_f1(tp, fp, fn)


def answer_correctness(ass: float, fc: float, fc_weight: float) -> float:
    """AC = (1 - w) ASS + w FC. RAGAS's default, which paper C says it uses and which makes its Table 2
    consistent, is w = 0.75 on FC; the paper's text reads w = 0.25 (``implied_fc``, docs/cdke.md)."""
    if not 0 <= fc_weight <= 1:
        raise ValueError("the FC weight lies in [0, 1]")
    return (1 - fc_weight) * ass + fc_weight * fc


def implied_fc(ass: float, ac: float, fc_weight: float) -> float:
    """The mean FC that a mean AC and a mean ASS imply under a weighting (AC is linear, so means carry over):
    FC = (AC - (1 - w) ASS) / w. Used to check which weighting a published table was computed with."""
    if not 0 < fc_weight <= 1:
        raise ValueError("the FC weight lies in (0, 1]")
    return (ac - (1 - fc_weight) * ass) / fc_weight


def clip_unit(value: float) -> float:
    """Cosine similarity can be slightly negative or exceed 1 by rounding; ASS is reported in [0, 1]."""
    return min(1.0, max(0.0, value))


@dataclass(frozen=True)
class JudgeComposite:
    """The per-answer composite the paper correlates with ASS (its Fig. 4): 0.5 LAV + 0.25 Acc + 0.25 Cm."""

    lav: float
    acc: float
    cm: float

    @property
    def value(self) -> float:
        # 0.5 / 0.25 / 0.25: weights of paper C's per-context correlation analysis (section 5).
        return 0.5 * self.lav + 0.25 * self.acc + 0.25 * self.cm
