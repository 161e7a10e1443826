"""Every figure the pages show, explained in one line (shown on hover) and on the glossary page, with its source."""

from __future__ import annotations

# term -> (name, what it means, where it comes from)
GLOSSARY: dict[str, tuple[str, str, str]] = {
    "lav": (
        "LAV, LLM answer validation",
        "Share of answers the evaluator judged valid, over all answers: an unparseable or failed verdict counts as "
        "not valid (its count is shown beside).",
        "Context Is King (paper C), §3.4; its main metric",
    ),
    "acc": (
        "Acc, accuracy",
        "The evaluator's score of how accurate the answer's facts are, on 0, 0.25, 0.5, 0.75, 1 (Table 1's rubric).",
        "paper C, §3.4 and Table 1",
    ),
    "cm": (
        "Cm, completeness",
        "The evaluator's score of how much of the ground truth the answer covers, on the same five levels.",
        "paper C, §3.4 and Table 1",
    ),
    "ass": (
        "ASS, answer semantic similarity",
        "Cosine of the embeddings of answer and ground truth (all-MiniLM-L6-v2 by default), clipped to [0, 1]. "
        "Needs no evaluator.",
        "paper C, §3.4 (after RAGAS)",
    ),
    "fc": (
        "FC, factual correctness",
        "F1 of atomic statements: TP / (TP + 0.5 (FP + FN)); the evaluator splits answer and ground truth into "
        "statements and says which are in both.",
        "paper C, §3.4 (after RAGAS)",
    ),
    "ac": (
        "AC, answer correctness",
        "(1 - w) ASS + w FC; w = 0.75 on FC by default (RAGAS's weight, the only one consistent with paper C's "
        "Table 2), 0.25 with the 'paper' convention.",
        "paper C, §3.4; docs/cdke.md",
    ),
    "n": ("n", "How many answers the figure is computed over.", ""),
    "unparseable": (
        "Unparseable",
        "Verdicts the evaluator wrote in a form that could not be read, even after one repair. Counted, never "
        "averaged as 0.",
        "",
    ),
    "failed": ("Failed", "Calls that failed (the provider kept erroring, or the answer itself failed).", ""),
    "ci": (
        "95 % interval",
        "Percentile bootstrap interval of the mean: 1000 resamples of the answers with a fixed seed. Wide when n is "
        "small.",
        "Efron & Tibshirani 1993",
    ),
    "goldsim": ("GoldSim", "S3KG of the answer's knowledge graph against the gold answer's.", "paper S, §3"),
    "ctxsim": ("CtxSim", "S3KG of the answer's knowledge graph against the context's.", "paper S, §3"),
    "cus": (
        "CUS, contextual understanding score",
        "Harmonic mean of GoldSim and CtxSim per item, averaged over the items: high only when the answer is close "
        "to both the gold answer and the context.",
        "paper S, §3",
    ),
    "s3kg": (
        "S3KG",
        "Similarity of two knowledge graphs: (1 - α) of a Weisfeiler-Lehman structural score plus α of a semantic "
        "score of their triplets (α = 0.5).",
        "paper S, §3; docs/s3kg.md defines each variant",
    ),
    "skipped": (
        "Skipped",
        "Items not scored because a graph was empty (an answer such as 'Yes.' gives no triplet). Counted, never "
        "scored 0.",
        "",
    ),
    "tau": (
        "TAU, triplet alignment",
        "For the 5 % lowest-CUS answers: answer triplets aligned to gold triplets (cosine > 0.76); what is left is "
        "relation wrong, entity wrong, extra (hallucinated) or missing.",
        "paper S, §4",
    ),
    "followed_context": (
        "Followed the context",
        "The answer states the divergent fact of the context (the words that tell it from the real fact).",
        "scoring/error_classes.py",
    ),
    "reverted_to_prior": (
        "Reverted to the prior",
        "The answer states the real-world fact instead of the context's divergent one: it answered from memory.",
        "scoring/error_classes.py",
    ),
    "neither": ("Neither", "The answer states neither fact (or the data has no alterations to tell).", ""),
    "divergent": ("divergent", "The model is shown the rewritten context (the method).", "paper C"),
    "real": ("real", "The model is shown the real source text (the control: it should score poorly).", "paper C"),
    "none": ("none", "No context at all (closed book).", ""),
    "delta": ("Δ", "Last run minus first run, on the questions each answered.", ""),
    "n_paired": (
        "n paired",
        "Questions both runs answered and scored: the paired interval and test are over these only.",
        "",
    ),
    "paired_ci": (
        "Paired interval",
        "95 % bootstrap interval of the mean per-question difference (the questions resampled, each keeping both of "
        "its scores).",
        "scoring/stats.py paired_comparison",
    ),
    "p_value": (
        "p",
        "McNemar's exact test for 0/1 scores (LAV), the exact sign test otherwise; over the questions where the two "
        "differ.",
        "scoring/stats.py",
    ),
    "kappa": (
        "Cohen's κ",
        "Agreement of two raters beyond chance: 1 perfect, 0 what chance gives. Undefined when a rater gives one "
        "label to everything.",
        "Cohen 1960",
    ),
    "f1": ("max F1", "The best F1 over a sweep of thresholds on the method's score (paraphrase or not).", "paper S"),
    "auroc": (
        "AUROC",
        "Probability that a paraphrase scores above a non-paraphrase; 0.5 is chance. Independent of a threshold.",
        "paper S",
    ),
}
