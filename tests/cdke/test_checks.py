"""The checks on a generator's artefacts, each on its own small case."""

from scoring.cdke.checks import fabrication_problems, question_problems, repeated_questions
from scoring.cdke.prompts import FABRICATE_CONTEXT, GENERATE_QUESTIONS
from scoring.cdke.verdicts import Alteration, DraftQuestion, Fabrication

REAL = "The Larkfield bridge was opened in 1931. It was designed by the engineer Marta Kowal in Dunmore."
GOOD = Fabrication(REAL.replace("1931", "1952"), (Alteration("date", "1931", "1952"),))


def _problems(fabrication: Fabrication) -> list[str]:
    return fabrication_problems(REAL, fabrication, FABRICATE_CONTEXT.text)


def test_a_real_rewrite_passes() -> None:
    assert _problems(GOOD) == []


def test_the_real_text_or_a_piece_of_it_is_refused() -> None:
    assert _problems(Fabrication(REAL, GOOD.alterations))[0] == "the divergent text is the real text unchanged"
    first = Fabrication("The Larkfield bridge was opened in 1931.", GOOD.alterations)
    assert _problems(first)[0] == "the divergent text is a piece of the real text, unchanged"


def test_a_truncation_is_refused() -> None:
    short = Fabrication("The Larkfield bridge was opened in 1952.", GOOD.alterations)  # 40 of 96 characters
    assert "a truncation" in _problems(short)[0]


def test_the_prompts_own_placeholders_are_refused() -> None:
    echo = Fabrication(GOOD.divergent_text, (Alteration("date", "<fact as in the article>", "<fact as rewritten>"),))
    assert _problems(echo) == [
        "alteration 1 ('<fact as in the article>' -> '<fact as rewritten>'): copies the "
        "prompt's placeholder instead of a fact"
    ]


def test_alterations_must_be_borne_out_by_both_texts() -> None:
    not_in_real = Fabrication(GOOD.divergent_text, (Alteration("date", "1929", "1952"),))
    assert _problems(not_in_real) == ["alteration 1 ('1929' -> '1952'): the original is not in the real text"]
    not_in_divergent = Fabrication(GOOD.divergent_text, (Alteration("name", "Marta Kowal", "Anna Nowak"),))
    assert _problems(not_in_divergent) == [
        "alteration 1 ('Marta Kowal' -> 'Anna Nowak'): the divergent value is not in the divergent text"
    ]
    same = Fabrication(GOOD.divergent_text, (*GOOD.alterations, Alteration("place", "Dunmore", "dunmore")))
    assert _problems(same) == ["alteration 2 ('Dunmore' -> 'dunmore'): the divergent value is the original one"]
    unchanged = Fabrication(GOOD.divergent_text, (*GOOD.alterations, Alteration("name", "Larkfield", "Marta")))
    assert _problems(unchanged) == ["alteration 2 ('Larkfield' -> 'Marta'): the two texts do not differ there"]


def test_questions_must_be_real_and_carry_a_divergent_fact() -> None:
    def problems(question: str, truth: str) -> list[str]:
        return question_problems(DraftQuestion(question, truth), ["1952"], GENERATE_QUESTIONS.text)

    assert problems("When did the Larkfield bridge open?", "It opened in 1952.") == []
    assert problems("...", "...") == ["the question '...' is not a question", "the ground truth '...' is not an answer"]
    assert problems("When did it open?", "In 1931.") == [
        "the ground truth 'In 1931.' carries none of the context's divergent facts"
    ]
    # Without recorded alterations there is no divergent fact to look for.
    assert question_problems(DraftQuestion("When did it open?", "In 1931."), [], GENERATE_QUESTIONS.text) == []


def test_a_repeated_question_is_found() -> None:
    drafts = [DraftQuestion("Who built it?", "Kowal."), DraftQuestion("who  built it?", "Nowak.")]
    assert repeated_questions(drafts) == [1]
