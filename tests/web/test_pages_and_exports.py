"""What the pages and the API show, checked on the hand-made world of conftest: highlights, the Table 2
numbers, the drill-down, plots, exports (streamed, complete, in import formats) and the report."""

import csv
import io
import json

import pytest
from django.core.management import call_command
from django.http import StreamingHttpResponse

from evalplatform.corpus.highlight import highlight
from evalplatform.runs.models import Run
from tests.web.conftest import World, client_for, make_world

pytestmark = pytest.mark.django_db


def body(response: object) -> str:
    assert isinstance(response, StreamingHttpResponse), "exports must be streamed"
    return b"".join(response.streaming_content).decode()  # type: ignore[arg-type]


def test_highlight_escapes_text_and_marks_each_phrase_longest_first() -> None:
    html = highlight("In <1901> & 1901 AD in Lyon", ["1901", "1901 AD", "Lyon"], "divergent")
    assert html == (
        'In &lt;<mark class="divergent">1901</mark>&gt; &amp; <mark class="divergent">1901 AD</mark> in '
        '<mark class="divergent">Lyon</mark>'
    )


def test_dataset_page_marks_divergent_and_original_facts_escaped(world: World) -> None:
    html = client_for(world, "researcher").get("/datasets/dkd-mini/").content.decode()
    divergent = (
        'The &lt;Eiffel&gt; Tower was finished in <mark class="divergent">1901</mark> in <mark class="divergent">'
    )
    assert divergent + "Lyon</mark>" in html
    assert 'finished in <mark class="original">1889</mark> in <mark class="original">Paris</mark>' in html
    assert "<Eiffel>" not in html
    assert "validated 4" in html  # question status counts


def test_run_page_shows_table2_means_counts_graph_scores_and_error_classes(world: World) -> None:
    html = client_for(world, "researcher").get(f"/runs/{world.run.pk}/").content.decode()
    # LAV over 1, 0, 1, 0 = 0.500; Cm has one unparseable score, so its mean is over three answers: (1 + 0 + 1) / 3.
    assert "0.500" in html and "0.667" in html and "1 unp." in html
    assert 'id="graph-scores"' in html and "0.6857" in html
    assert 'id="error-classes"' in html
    # Two contexts are too few for the per-context scatter: the page leaves it out (plots only where informative).
    assert 'id="plot-correlation"' not in html


def test_results_api_gives_intervals_and_unparseable_counts(world: World) -> None:
    data = client_for(world, "admin").get(f"/api/runs/{world.run.pk}/results/").json()
    (cell,) = data["intervals"]
    assert cell["lav"]["mean"] == 0.5 and cell["lav"]["n"] == 4
    assert cell["cm"]["n"] == 3 and cell["cm"]["n_unparseable"] == 1
    assert data["graph_scores"][0]["cus"] == pytest.approx(0.6857)


def test_drill_down_shows_raw_judge_output_escaped_graphs_and_tau(world: World) -> None:
    client = client_for(world, "researcher")
    g = world.generations[0]
    html = client.get(f"/runs/{world.run.pk}/generations/{g.pk}/").content.decode()
    assert "{&quot;verdict&quot;: &quot;valid&quot;} &lt;raw &amp; judge&gt;" in html
    assert html.count("<svg") == 3  # answer, gold and context graphs
    assert "KG of the gold" in html and "lyon" in html
    assert "TAU diagnosis" in html
    api = client.get(f"/api/runs/{world.run.pk}/generations/{g.pk}/").json()
    assert api["graphs"][0]["gold_triplets"] == [["tower", "finish in", "1901"], ["tower", "in", "lyon"]]
    assert api["graphs"][0]["tau"]["missing"] == [["tower", "in", "lyon"]]
    assert {s["metric"] for s in api["scores"]} == {"ass", "lav", "acc", "cm", "fc", "ac"}


def test_plots_are_svg_with_the_correlation_and_the_heatmap_values(world: World) -> None:
    client = client_for(world, "researcher")
    scatter = client.get(f"/runs/{world.run.pk}/plots/correlation.svg")
    assert scatter["Content-Type"] == "image/svg+xml"
    # Two contexts: (ASS, composite) = (0.625, 0.5) and (0.625, 0.5): r is undefined, shown as n/a.
    assert scatter.content.startswith(b"<svg") and b"cand / judge" in scatter.content
    heatmap = client.get("/benchmarks/heatmap-f1.svg").content.decode()
    assert "s3kg@alpha=0.5" in heatmap and "0.70" in heatmap and "mrpc-mini" in heatmap
    sweep = client.get("/benchmarks/alpha-sweep-f1.svg").content.decode()
    assert "s3kg on mrpc-mini" in sweep


def test_run_exports_stream_every_row_as_csv_and_jsonl(world: World) -> None:
    client = client_for(world, "researcher")
    rows = list(csv.DictReader(io.StringIO(body(client.get(f"/api/runs/{world.run.pk}/export/generations.csv")))))
    assert [r["answer"] for r in rows] == ["In 1901.", "In 1889.", "In 1901, in Lyon.", "No idea."]
    lines = body(client.get(f"/api/runs/{world.run.pk}/export/scores.jsonl")).splitlines()
    assert len(lines) == 4 * 6
    unparseable = [json.loads(x) for x in lines if json.loads(x)["status"] == "unparseable"]
    assert unparseable == [unparseable[0]] and unparseable[0]["value"] is None
    assert client.get(f"/api/runs/{world.run.pk}/export/secrets.csv").status_code == 404


def test_dataset_export_is_streamed_in_an_import_format_that_imports_again(world: World, tmp_path) -> None:
    client = client_for(world, "researcher")
    text = body(client.get("/api/datasets/dkd-mini/export/dkd/"))
    path = tmp_path / "again.json"
    path.write_text(text)
    call_command("import_dataset", str(path), format="dkd", name="dkd-again")
    again = client_for(world, "admin").get("/api/datasets/dkd-again/").json()
    assert again["counts"] == {"contexts": 2, "questions": 4, "alterations": 4, "pairs": 0}
    assert client.get("/api/datasets/mrpc-mini/export/dkd/").status_code == 400


def test_launch_page_shows_the_estimate_before_launching(world: World, django_capture_on_commit_callbacks) -> None:
    client = client_for(world, "researcher")
    form = {
        "dataset": "dkd-mini",
        "models": ["cand"],
        "evaluators": ["judge"],
        "temperatures": "0.2, 0.7",
        "conditions": ["divergent"],
        "samples": 1,
    }
    html = client.post("/runs/launch/", form | {"action": "estimate"}).content.decode()
    assert 'id="estimate"' in html and 'id="confirm-launch"' in html
    assert Run.objects.count() == 2  # nothing launched yet
    with django_capture_on_commit_callbacks(execute=False):
        response = client.post("/runs/launch/", form | {"action": "launch"})
    run = Run.objects.latest("pk")
    assert response.status_code == 302 and response["Location"] == f"/runs/{run.pk}/"
    assert run.spec["temperatures"] == [0.2, 0.7] and run.generations.count() == 8


def test_launch_page_shares_the_run_launch_allowance_with_the_api(
    world: World, settings, django_capture_on_commit_callbacks
) -> None:
    settings.REST_FRAMEWORK = settings.REST_FRAMEWORK | {
        "DEFAULT_THROTTLE_RATES": settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"] | {"run_launch": "2/hour"}
    }
    client = client_for(world, "researcher")
    form = {"dataset": "dkd-mini", "models": ["cand"], "temperatures": "0.2", "conditions": ["divergent"], "samples": 1}
    assert client.post("/api/runs/", {"dataset": "x", "models": ["y"]}, format="json").status_code == 400
    with django_capture_on_commit_callbacks(execute=False):
        assert client.post("/runs/launch/", form | {"action": "launch"}).status_code == 302
        estimate = client.post("/runs/launch/", form | {"action": "estimate"})  # an estimate launches nothing
        assert estimate.status_code == 200
        refused = client.post("/runs/launch/", form | {"action": "launch"})
    assert refused.status_code == 429 and 1 <= int(refused["Retry-After"]) <= 3600
    assert "launched too many runs" in refused.content.decode()
    assert Run.objects.count() == 3  # the world's two and the one launch allowed
    other = client_for(world, "admin")  # counted per user
    with django_capture_on_commit_callbacks(execute=False):
        assert other.post("/runs/launch/", form | {"action": "launch"}).status_code == 302


def test_launch_api_refuses_unknown_models_with_400(world: World) -> None:
    client = client_for(world, "researcher")
    response = client.post("/api/runs/", {"dataset": "dkd-mini", "models": ["nope"]}, format="json")
    assert response.status_code == 400 and "models" in response.json()


def test_launch_api_is_throttled(world: World, settings) -> None:
    from rest_framework.settings import api_settings
    from rest_framework.throttling import ScopedRateThrottle

    rates = settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"] | {"run_launch": "2/hour"}
    ScopedRateThrottle.THROTTLE_RATES = rates
    try:
        client = client_for(world, "researcher")
        codes = [client.post("/api/runs/estimate/", {}, format="json").status_code for _ in range(1)]
        codes += [
            client.post("/api/runs/", {"dataset": "x", "models": ["y"]}, format="json").status_code for _ in range(3)
        ]
        assert codes == [400, 400, 400, 429]
        assert client.get("/api/runs/").status_code == 200  # reads are not throttled by run_launch
    finally:
        ScopedRateThrottle.THROTTLE_RATES = api_settings.DEFAULT_THROTTLE_RATES  # type: ignore[assignment]


def test_report_counts_datasets_runs_and_annotators(world: World) -> None:
    html = client_for(world, "admin").get("/reports/").content.decode()
    assert "dkd-mini" in html and "anna-annotator" in html
    assert 'id="report-agreement"' in html


def test_demo_users_command_is_idempotent_and_gives_each_role(db) -> None:
    from django.contrib.auth import authenticate

    from evalplatform.corpus.models import Dataset, Project
    from evalplatform.roles import role_of

    Dataset.objects.create(name="dkd-sample", kind="dkd")
    out = io.StringIO()
    call_command("create_demo_users", stdout=out)
    call_command("create_demo_users", stdout=out)
    assert "demo-researcher" in out.getvalue() and "demo-researcher-pass" in out.getvalue()
    researcher = authenticate(username="demo-researcher", password="demo-researcher-pass")
    assert researcher is not None and role_of(researcher) == "researcher"
    admin_user = authenticate(username="demo-admin", password="demo-admin-pass")
    annotator = authenticate(username="demo-annotator3", password="demo-annotator3-pass")
    assert admin_user is not None and role_of(admin_user) == "admin"
    assert annotator is not None and role_of(annotator) == "annotator"
    demo = Project.objects.get(name="demo")
    assert list(demo.members.values_list("username", flat=True)) == ["demo-researcher"]
    assert list(demo.datasets.values_list("name", flat=True)) == ["dkd-sample"]


@pytest.mark.django_db(transaction=True)
@pytest.mark.postgres
def test_an_export_reads_its_rows_as_they_are_fetched_not_all_at_once() -> None:
    """Outside a transaction Django declares an export's cursor WITH HOLD, and PostgreSQL then computes the whole
    result when the cursor is declared: the first row of a 10,000-cell export waited for the last (0.016 s at 100
    cells, 0.051 s at 10,000, growing with the run: benchmarks/bench_read_size.py). The export reads inside one
    transaction instead: rows as they are fetched, one consistent snapshot."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    if connection.vendor != "postgresql":
        pytest.skip("server-side cursors are PostgreSQL's; set DATABASE_URL=postgres://...")
    world = make_world()
    client = client_for(world, "researcher")
    for kind in ("generations", "scores"):
        with CaptureQueriesContext(connection) as queries:
            text = body(client.get(f"/api/runs/{world.run.pk}/export/{kind}.csv"))
        declared = [q["sql"] for q in queries.captured_queries if q["sql"].startswith("DECLARE")]
        assert declared and all("WITH HOLD" not in sql for sql in declared), declared
        assert len(text.splitlines()) > 1
