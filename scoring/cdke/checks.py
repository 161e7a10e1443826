"""What a generator's artefact must be before it is stored (CDK-E steps 1 and 2). A fabricated context must
really diverge from its real text where its alterations say it does; a question and its ground truth must be real
text, and the ground truth must carry a divergent fact; nothing may be echoed from the prompt. Each check returns
the problems it found, as sentences a reviewer can read (an empty list: the artefact may be stored). Plain Python.

Texts are compared with white space folded and case ignored."""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from scoring.cdke.verdicts import DraftQuestion, Fabrication

# 0.5: a divergent context keeps the length of its article (the prompt asks for it); one under half as long is
# taken for a truncation. Our bound, not the paper's.
MIN_LENGTH_RATIO = 0.5
# 3: the fewest words of a question ("Who founded Ostervale?").
MIN_QUESTION_WORDS = 3
_WORD = re.compile(r"[^\W_]+")


def folded(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip().casefold()


def _has_words(text: str, at_least: int = 1) -> bool:
    return len(_WORD.findall(text)) >= at_least


def _echoed(value: str, prompt_text: str, *sources: str) -> bool:
    """A value copied from the prompt's own wording (a placeholder such as ``<fact as rewritten>`` or ``...``):
    it stands in the prompt template and in none of the texts it should come from."""
    v = folded(value)
    return bool(v) and v in folded(prompt_text) and not any(v in folded(source) for source in sources)


def fabrication_problems(real_text: str, fabrication: Fabrication, prompt_text: str) -> list[str]:
    """Why a fabricated context may not be stored: its text is the real one, a piece of it or a truncation;
    an alteration's original is not in the real text, its divergent value not in the divergent text, the two
    are equal, the texts do not differ there, or a value is the prompt's own placeholder."""
    real, divergent = folded(real_text), folded(fabrication.divergent_text)
    problems = []
    if divergent == real:
        problems.append("the divergent text is the real text unchanged")
    elif divergent in real:
        problems.append("the divergent text is a piece of the real text, unchanged")
    elif len(divergent) < MIN_LENGTH_RATIO * len(real):
        problems.append(
            f"the divergent text is {len(divergent)} characters for a real text of {len(real)}: a truncation, not "
            "a rewrite"
        )
    for index, alteration in enumerate(fabrication.alterations, start=1):
        original, changed = folded(alteration.original), folded(alteration.divergent)
        where = f"alteration {index} ({alteration.original!r} -> {alteration.divergent!r})"
        if _echoed(alteration.original, prompt_text, real_text) or _echoed(
            alteration.divergent, prompt_text, fabrication.divergent_text
        ):
            problems.append(f"{where}: copies the prompt's placeholder instead of a fact")
            continue
        if not _has_words(alteration.original) or not _has_words(alteration.divergent):
            problems.append(f"{where}: a value without a word or a number")
            continue
        if original == changed:
            problems.append(f"{where}: the divergent value is the original one")
            continue
        if original not in real:
            problems.append(f"{where}: the original is not in the real text")
        if changed not in divergent:
            problems.append(f"{where}: the divergent value is not in the divergent text")
        elif changed in real and divergent.count(original) >= real.count(original):
            problems.append(f"{where}: the two texts do not differ there")
    return problems


def question_problems(draft: DraftQuestion, divergent_values: Sequence[str], prompt_text: str) -> list[str]:
    """Why a draft question may not be stored: the question or its ground truth is not real text (a placeholder
    such as ``...``, too short), or the ground truth carries none of the context's divergent values (when the
    context records its alterations)."""
    problems = []
    if _echoed(draft.question, prompt_text) or not _has_words(draft.question, MIN_QUESTION_WORDS):
        problems.append(f"the question {draft.question!r} is not a question")
    if _echoed(draft.ground_truth, prompt_text) or not _has_words(draft.ground_truth):
        problems.append(f"the ground truth {draft.ground_truth!r} is not an answer")
    elif divergent_values and not any(folded(v) in folded(draft.ground_truth) for v in divergent_values if folded(v)):
        problems.append(f"the ground truth {draft.ground_truth!r} carries none of the context's divergent facts")
    return problems


def repeated_questions(drafts: Iterable[DraftQuestion]) -> list[int]:
    """Indices of drafts that repeat an earlier question of the same batch."""
    seen: set[str] = set()
    repeats = []
    for index, draft in enumerate(drafts):
        key = folded(draft.question)
        if key in seen:
            repeats.append(index)
        seen.add(key)
    return repeats
