"""Plots drawn on the server as SVG with matplotlib's Agg-free SVG canvas: the per-context scatters of
0.5 LAV + 0.25 Acc + 0.25 Cm against ASS (paper C, Fig. 4) and of LAV against Acc (its Fig. 5), the method x
dataset heatmap of a similarity benchmark (paper S, Fig. 3), alpha-sweep curves, temperature trends and a
knowledge graph.

Every function takes plain data and returns an SVG document as text; nothing here touches the database. Labels
come from data (model names, triplet labels an LLM extracted) and pass through ``literal`` before matplotlib sees
them, so that none is read as mathtext: ``$x^{$`` cannot crash a page and ``$5 and $6`` shows its dollars. (An
escape on each label rather than ``rcParams["text.parse_math"]``: rcParams are global, and pages draw in
several threads at once.)"""

import io
import math
import re
from collections.abc import Mapping, Sequence
from typing import Any

import matplotlib

matplotlib.use("Agg")

from matplotlib.figure import Figure

SVG_RC: dict[str, Any] = {"svg.fonttype": "none", "svg.hashsalt": "evalplatform", "font.size": 9}
ALPHA_METHOD = re.compile(r"^(?P<base>[\w.-]+)@alpha=(?P<alpha>[0-9.]+)$")


def literal(text: object) -> str:
    """``text`` as matplotlib must be given it to draw it as it is: every dollar escaped. Matplotlib reads a text
    with unescaped dollars as mathtext, and draws ``\\$`` as ``$`` in a text without math."""
    return str(text).replace("$", r"\$")


def _svg(fig: Figure) -> str:
    buffer = io.StringIO()
    with matplotlib.rc_context(SVG_RC):  # type: ignore[arg-type]
        fig.savefig(buffer, format="svg", bbox_inches="tight", metadata={"Date": None})
    text = buffer.getvalue()
    return text[text.find("<svg") :]


def _empty(message: str) -> str:
    fig = Figure(figsize=(4, 1.2))
    ax = fig.add_subplot()
    ax.axis("off")
    ax.text(0.5, 0.5, literal(message), ha="center", va="center")
    return _svg(fig)


def correlation_scatter_svg(
    series: Sequence[tuple[str, Sequence[tuple[float, float]], float | None]],
    *,
    xlabel: str = "ASS",
    ylabel: str = "0.5 LAV + 0.25 Acc + 0.25 Cm",
    urls: Sequence[Sequence[str]] | None = None,
) -> str:
    """One panel per (label, points, r), a point per context: by default x = its mean ASS and y = its mean
    0.5 LAV + 0.25 Acc + 0.25 Cm (paper C, Fig. 4); paper C's Fig. 5 puts Acc on x and LAV on y. ``urls`` gives
    each panel's points a link (matplotlib writes them as SVG anchors)."""
    if not series:
        return _empty("no scored contexts yet")
    n = len(series)
    cols = min(3, n)
    rows = math.ceil(n / cols)
    fig = Figure(figsize=(3.2 * cols, 3.0 * rows))
    for index, (label, points, r) in enumerate(series):
        ax = fig.add_subplot(rows, cols, index + 1)
        xs = [p[0] for p in points]
        ys = [p[1] for p in points]
        dots = ax.scatter(xs, ys, s=14, color="#1f77b4")
        if urls is not None and index < len(urls):
            dots.set_urls(list(urls[index]))  # each point links to its context's answers (an inline SVG only)
        ax.set_xlim(-0.02, 1.02)
        ax.set_ylim(-0.02, 1.02)
        ax.set_xlabel(literal(xlabel))
        ax.set_ylabel(literal(ylabel))
        ax.set_title(literal(f"{label}  r = {'n/a' if r is None else f'{r:.2f}'}"))
        ax.grid(alpha=0.3)
    fig.tight_layout()
    return _svg(fig)


def heatmap_svg(values: Mapping[tuple[str, str], float | None], metric: str) -> str:
    """Methods as rows, datasets as columns, the cell annotated with its value (empty when missing)."""
    if not values:
        return _empty("no benchmark results yet")
    methods = sorted({m for m, _ in values})
    datasets = sorted({d for _, d in values})
    grid = [[values.get((m, d)) for d in datasets] for m in methods]
    data = [[math.nan if v is None else v for v in row] for row in grid]
    fig = Figure(figsize=(1.2 + 1.1 * len(datasets), 0.8 + 0.35 * len(methods)))
    ax = fig.add_subplot()
    image = ax.imshow(data, cmap="viridis", vmin=0.0, vmax=1.0, aspect="auto")
    ax.set_xticks(range(len(datasets)), [literal(d) for d in datasets], rotation=30, ha="right")
    ax.set_yticks(range(len(methods)), [literal(m) for m in methods])
    for i, row in enumerate(grid):
        for j, value in enumerate(row):
            if value is not None:
                ax.text(j, i, f"{value:.2f}", ha="center", va="center", color="white" if value < 0.6 else "black")
    ax.set_title(literal(metric))
    fig.colorbar(image, ax=ax, shrink=0.8)
    return _svg(fig)


def alpha_points(results: Mapping[str, float | None]) -> dict[str, list[tuple[float, float]]]:
    """{method: value} -> {base method: [(alpha, value)] sorted by alpha} for methods named 'base@alpha=a'."""
    curves: dict[str, list[tuple[float, float]]] = {}
    for method, value in results.items():
        match = ALPHA_METHOD.match(method)
        if match and value is not None:
            curves.setdefault(match["base"], []).append((float(match["alpha"]), value))
    return {base: sorted(points) for base, points in sorted(curves.items())}


def line_chart_svg(curves: Mapping[str, Sequence[tuple[float, float]]], *, xlabel: str, ylabel: str, title: str) -> str:
    """One line per label through its (x, y) points: the alpha sweep and the temperature trends."""
    if not any(curves.values()):
        return _empty(f"no data for {title.lower()}")
    fig = Figure(figsize=(5.0, 3.2))
    ax = fig.add_subplot()
    for label, points in curves.items():
        if points:
            ax.plot([p[0] for p in points], [p[1] for p in points], marker="o", label=literal(label))
    ax.set_xlabel(literal(xlabel))
    ax.set_ylabel(literal(ylabel))
    ax.set_title(literal(title))
    ax.set_ylim(-0.02, 1.02)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=7)
    return _svg(fig)


def graph_svg(triplets: Sequence[tuple[str, str, str]], title: str) -> str:
    """A knowledge graph drawn with a networkx spring layout (seeded, so a graph always looks the same):
    entities as nodes, each relation as a labelled arrow head -> tail."""
    import networkx as nx

    if not triplets:
        return _empty(f"{title}: no triplets")
    graph = nx.MultiDiGraph()
    for head, relation, tail in triplets:
        graph.add_edge(head, tail, label=relation)
    positions = nx.spring_layout(graph, seed=7)
    fig = Figure(figsize=(4.2, 3.2))
    ax = fig.add_subplot()
    ax.axis("off")
    ax.set_title(literal(title))
    for head, tail, data in graph.edges(data=True):
        (x1, y1), (x2, y2) = positions[head], positions[tail]
        ax.annotate("", xy=(x2, y2), xytext=(x1, y1), arrowprops={"arrowstyle": "->", "color": "#777", "shrinkB": 12})
        ax.text((x1 + x2) / 2, (y1 + y2) / 2, literal(data["label"]), fontsize=7, color="#a33", ha="center")
    for node, (x, y) in positions.items():
        ax.text(x, y, literal(node), fontsize=8, ha="center", va="center", bbox={"boxstyle": "round", "fc": "#e8f0f8"})
    xs = [p[0] for p in positions.values()]
    ys = [p[1] for p in positions.values()]
    ax.set_xlim(min(xs) - 0.4, max(xs) + 0.4)
    ax.set_ylim(min(ys) - 0.3, max(ys) + 0.3)
    return _svg(fig)


# (bin label, rate, interval low, interval high, n) for one distance bin of one series.
PreferencePoint = tuple[str, float | None, float | None, float | None, int]
DISTANCE_AXES = {
    "number": "change factor of the number (divergent / real, either way)",
    "date": "gap between the real and the divergent date",
}


def preference_by_distance_svg(panels: Mapping[str, Mapping[str, Sequence[PreferencePoint]]]) -> str:
    """Context preference against the size of the alteration, after ClashEval's plot (Wu, Wu & Zou 2024): one
    panel per kind (numbers, dates), the distance bins in order on x, one line per series (model, condition,
    temperature) through its bins' rates with their 95 % intervals as error bars; an empty bin is a gap. Series
    sit a little apart on x so that their bars do not hide each other. ``panels``: kind -> label -> points."""
    shown = {
        kind: {label: points for label, points in series.items() if any(p[1] is not None for p in points)}
        for kind, series in panels.items()
    }
    shown = {kind: series for kind, series in shown.items() if series}
    if not shown:
        return _empty("no number or date alteration on an item where the model knew the fact")
    fig = Figure(figsize=(4.8 * len(shown), 3.4))
    for index, (kind, series) in enumerate(shown.items()):
        ax = fig.add_subplot(1, len(shown), index + 1)
        bins = [p[0] for p in next(iter(series.values()))]
        for j, (label, points) in enumerate(series.items()):
            offset = (j - (len(series) - 1) / 2) * 0.08
            xs = [i + offset for i in range(len(points))]
            ys = [math.nan if p[1] is None else p[1] for p in points]
            below = [0.0 if p[1] is None or p[2] is None else p[1] - p[2] for p in points]
            above = [0.0 if p[1] is None or p[3] is None else p[3] - p[1] for p in points]
            ax.errorbar(xs, ys, yerr=[below, above], marker="o", capsize=3, label=literal(label))
        ax.set_xticks(range(len(bins)), [literal(b) for b in bins])
        ax.set_xlabel(literal(DISTANCE_AXES.get(kind, "distance")))
        ax.set_ylabel("context preference")
        ax.set_title(literal(f"{kind}s"))
        ax.set_ylim(-0.05, 1.05)
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7)
    fig.tight_layout()
    return _svg(fig)
