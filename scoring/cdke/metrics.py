"""CDK-E's answer metrics that are arithmetic, not judgement (Piñeiro-Martín et al., "Context Is King",
Applied Sciences 15(3):1192, 2025, section 3.4). Plain Python: no Django, no model calls."""

from dataclasses import dataclass


def statement_f1(tp: int, fp: int, fn: int) -> float | None:
    """FC, the F1 of statements: TP / (TP + 0.5 (FP + FN)). None when there is nothing to compare
    (no statement on either side): such an answer is unscorable, not wrong."""
    if min(tp, fp, fn) < 0:
        raise ValueError("statement counts cannot be negative")
    denominator = tp + 0.5 * (fp + fn)
    return None if denominator == 0 else tp / denominator


def answer_correctness(ass: float, fc: float, fc_weight: float) -> float:
    """AC = (1 - w) ASS + w FC. The paper states w = 0.25 on FC; RAGAS's default is w = 0.75."""
    if not 0 <= fc_weight <= 1:
        raise ValueError("the FC weight lies in [0, 1]")
    return (1 - fc_weight) * ass + fc_weight * fc


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
