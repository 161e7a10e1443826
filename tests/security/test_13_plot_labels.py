"""Finding 13: a ``$…$`` label from an LLM crashed the answer page (matplotlib read it as mathtext and failed to
parse it), and ``$5 and $6`` rendered mangled. Every label is now drawn literally."""

import pytest

from evalplatform.runs import plots
from scoring.models import GraphScore, Triplet
from tests.web.conftest import World, client_for

BROKEN_MATH = "$x^{$"
DOLLARS = "costs $5 and $6"


def test_a_graph_with_mathtext_labels_is_drawn_literally() -> None:
    svg = plots.graph_svg([(BROKEN_MATH, DOLLARS, r"$\alpha$")], "KG of the answer")
    assert BROKEN_MATH in svg and DOLLARS in svg and r"$\alpha$" in svg


def test_every_plot_takes_its_labels_literally() -> None:
    label = f"model {DOLLARS}"
    assert DOLLARS in plots.correlation_scatter_svg([(label, [(0.1, 0.2), (0.3, 0.4)], 0.5)], xlabel=BROKEN_MATH)
    assert BROKEN_MATH in plots.line_chart_svg({BROKEN_MATH: [(0.0, 0.5)]}, xlabel="x", ylabel="y", title=DOLLARS)
    assert DOLLARS in plots.heatmap_svg({(DOLLARS, BROKEN_MATH): 0.5}, "F1")
    assert r"C:\$HOME" in plots.graph_svg([(r"C:\$HOME", "r", "t")], "a backslash before a dollar")
    assert plots.matplotlib.rcParams["text.parse_math"] is True  # labels are escaped; no global is changed


@pytest.mark.django_db
def test_the_answer_page_shows_an_llm_label_with_dollars(world: World) -> None:
    graph = GraphScore.objects.get(generation=world.generations[0]).answer_graph
    Triplet.objects.create(graph=graph, position=1, head=BROKEN_MATH, relation=DOLLARS, tail="$$")
    run, generation = world.run.pk, world.generations[0].pk
    response = client_for(world, "researcher").get(f"/runs/{run}/generations/{generation}/")
    assert response.status_code == 200
    assert DOLLARS in response.content.decode()
