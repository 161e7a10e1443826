"""Issue 15's goal 1 as one command: ``bench_run_throughput.py`` over a grid of run sizes, provider latencies,
concurrency limits and model-calling workers, one run after the other, every figure kept in a JSON file and printed
as one Markdown table (the README's and docs/scale.md's).

    DATABASE_URL=postgres://... CELERY_BROKER_URL=redis://... \\
    .venv/bin/python benchmarks/bench_run_matrix.py --cells 200,2000,10000 --latency 0.05,1 --concurrency 16 \\
        --workers 1,2 --json var/bench/matrix.json

Each grid point is a fresh throwaway database and fresh workers (``bench_run_throughput.py`` as a subprocess). A point
already in the JSON file (same cells, latency, concurrency and workers) is not run again, so an interrupted grid goes
on where it stopped; ``--again`` runs every point anew. The bound of a point is C / L calls per second; at C / L
beyond what the machine's cores can carry the ratio measures the machine, not the provider (docs/scale.md)."""

from __future__ import annotations

import argparse
import itertools
import json
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
THROUGHPUT = REPO / "benchmarks" / "bench_run_throughput.py"
# The columns of the table, in order: (figure, heading).
COLUMNS = (
    ("cells", "cells"),
    ("latency_s", "L (s)"),
    ("concurrency", "C"),
    ("workers", "workers"),
    ("llm_calls", "calls"),
    ("seconds", "seconds"),
    ("calls_per_s", "calls/s"),
    ("bound_calls_per_s", "bound C/L"),
    ("ratio_to_bound", "ratio (>= 0.8)"),
    ("repeated_calls", "calls made twice"),
    ("cpu_ms_per_call", "CPU ms/call (<= 10)"),
    ("db_server_cpu_ms_per_call", "PostgreSQL ms/call"),
    ("provider_cpu_ms_per_call", "fake provider ms/call"),
    ("machine_cpu_busy", "machine busy"),
    ("queries_per_cell", "queries/cell"),
    ("rows_read_per_cell", "rows read/cell"),
    ("worker_rss_mb", "LLM worker MB"),
    ("page_seconds", "run page s"),
)


def floats(text: str) -> list[float]:
    return [float(part) for part in text.split(",") if part]


def ints(text: str) -> list[int]:
    return [int(part) for part in text.split(",") if part]


def point_key(point: dict[str, Any]) -> tuple[int, float, int, int]:
    return (int(point["cells"]), float(point["latency_s"]), int(point["concurrency"]), int(point["workers"]))


def run_point(cells: int, latency: float, concurrency: int, workers: int, timeout: float) -> dict[str, Any]:
    """One grid point: the throughput benchmark in its own process, its figures as it wrote them."""
    with tempfile.NamedTemporaryFile(suffix=".json") as out:
        args = [sys.executable, str(THROUGHPUT), "--cells", str(cells), "--latency", str(latency)]
        args += ["--concurrency", str(concurrency), "--workers", str(workers), "--timeout", str(timeout)]
        done = subprocess.run([*args, "--json", out.name], cwd=REPO, capture_output=True, text=True)
        if done.returncode != 0:
            tail = done.stdout[-2000:] + done.stderr[-2000:]
            raise SystemExit(f"{' '.join(args)} failed ({done.returncode}):\n{tail}")
        figures: dict[str, Any] = json.loads(Path(out.name).read_text())
    return figures


def markdown(points: list[dict[str, Any]]) -> str:
    lines = ["| " + " | ".join(heading for _, heading in COLUMNS) + " |", "|" + "---|" * len(COLUMNS)]
    for point in sorted(points, key=point_key):
        lines.append("| " + " | ".join(str(point.get(name, "")) for name, _ in COLUMNS) + " |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--cells", type=ints, default=[200, 2000])
    parser.add_argument("--latency", type=floats, default=[0.05, 1.0], help="Seconds per call, comma-separated.")
    parser.add_argument("--concurrency", type=ints, default=[16], help="The endpoint's concurrency limits C.")
    parser.add_argument("--workers", type=ints, default=[1, 2], help="Model-calling worker processes.")
    parser.add_argument("--timeout", type=float, default=7200, help="Seconds one run may take.")
    parser.add_argument("--json", type=Path, required=True, help="Figures of every point (read first, then kept).")
    parser.add_argument("--again", action="store_true", help="Run the points already in the JSON file again.")
    options = parser.parse_args()
    kept: list[dict[str, Any]] = []
    if options.json.exists() and not options.again:
        kept = json.loads(options.json.read_text())
    done = {point_key(point) for point in kept}
    grid = itertools.product(options.cells, options.latency, options.concurrency, options.workers)
    for cells, latency, concurrency, workers in grid:
        if (cells, latency, concurrency, workers) in done:
            continue
        print(f"cells {cells}, L {latency} s, C {concurrency}, workers {workers} ...", flush=True)
        point = run_point(cells, latency, concurrency, workers, options.timeout)
        print(f"  ratio {point['ratio_to_bound']}, CPU {point['cpu_ms_per_call']} ms per call", flush=True)
        kept = [p for p in kept if point_key(p) != point_key(point)] + [point]
        options.json.parent.mkdir(parents=True, exist_ok=True)
        options.json.write_text(json.dumps(kept, indent=2))
    print(markdown(kept))


if __name__ == "__main__":
    main()
