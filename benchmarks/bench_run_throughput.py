"""A whole CDK-E run at the speed of the providers? Launches a run of N cells against a fake OpenAI-compatible
server answering after a fixed latency L (tests/runs/judge_server.py: counts requests and the most in flight at
once), on the configured PostgreSQL and broker, with W real Celery workers for the model calls (thread pool) and
one for the rest (ASS batches, the feeder), queues by kind of work. One endpoint plays the candidate and the judge,
with a concurrency limit C shared by every worker through Redis, so the bound on calls per second is C / L.

    DATABASE_URL=postgres://... CELERY_BROKER_URL=redis://... \\
    .venv/bin/python benchmarks/bench_run_throughput.py --cells 200 --latency 0.05 --workers 1 [--json OUT]

Prints one line per figure with its target (issue 15):
- ratio_to_bound: LLM calls per second over the whole run, answers and judging together, / (C / L)   (>= 0.8)
- repeated_calls: LLM calls whose prompt the provider had seen before in the run (every cell asks its own
  question, so each is a call made twice)                                                           (0)
- cpu_ms_per_call: CPU time of the worker processes / LLM calls                                      (<= 10)
  (llm_worker_cpu_ms_per_call: the model-calling workers' share of it)
- queries_per_cell: SQL queries of the workers / cells                                              (constant)
- rows_read_per_cell: rows PostgreSQL returned or fetched in the run's database / cells            (flat in N)
  (rows_read_per_cell_by_table: the five tables or indexes read most, the system catalogs together;
  db_server_cpu_ms_per_call: the local PostgreSQL server's own CPU / LLM calls)
- worker_rss_mb: the largest model-calling worker's resident memory                                (<= 1024)
- page_seconds / results_api_seconds: the run page and GET /api/runs/<id>/results/ at that size (within 3x)
- provider_cpu_ms_per_call: the fake provider's own CPU (this process) / LLM calls: on the same cores, not the
  platform's, but not free either
- machine_cpu_busy: the share of the machine's cores busy during the run (fake provider, PostgreSQL and all);
  near 1, the machine is the limit and the ratio does not measure the platform against the provider
- machine_speed_ms: CPU ms of a fixed pure-Python workload before and after the run (the same code's
  cpu_ms_per_call differs between machines about as this does); machine_cpu_stolen: the share of the run the
  hypervisor gave the machine's cores to others
- db_autovacuum: the server's setting; off, rows read per cell grow with N whatever the platform does (runs.W001)
It runs in a throwaway database of its own (test_bench_throughput_<pid>), created and dropped, so a test suite on
the same server is left alone."""

from __future__ import annotations

import argparse
import glob
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "evalplatform.settings")
# As in production: DEBUG off (Django's debug cursor keeps every query in memory and costs CPU per query).
os.environ["DEBUG"] = "0"
os.environ.setdefault("SECRET_KEY", os.urandom(32).hex())
os.environ["EVALPLATFORM_QUEUES_BY_KIND"] = "1"
# Queues, an endpoint and a database of this process's own (its workers inherit the environment): a benchmark beside
# a test suite, a platform or another benchmark on the same broker and server neither takes their tasks nor gives
# them its own, and shares no concurrency slots with them.
OWN = f"bench{os.getpid()}"
os.environ["EVALPLATFORM_QUEUE_PREFIX"] = f"{OWN}-"
os.environ.pop("CELERY_TASK_DEFAULT_QUEUE", None)
os.environ["CELERY_TASK_ALWAYS_EAGER"] = "0"
os.environ["ALLOWED_HOSTS"] = "localhost,127.0.0.1,testserver"  # the page timings use the test client

import django

django.setup()

from django.conf import settings
from django.contrib.auth.models import User
from django.db import connection
from django.test import Client

from evalplatform.celery import app
from evalplatform.runs.launch import run_launch
from evalplatform.runs.models import ModelEndpoint, Run
from tests.runs.bench_dataset import create_bench_database, make_dataset
from tests.runs.judge_server import JudgeServer

TARGETS = {
    "ratio_to_bound": ">= 0.8",
    "repeated_calls": "0",
    "cpu_ms_per_call": "<= 10",
    "queries_per_cell": "constant in N",
    "rows_read_per_cell": "flat in N",
    "worker_rss_mb": "<= 1024",
    "page_seconds": "within 3x from 100 to 10,000 cells",
    "results_api_seconds": "within 3x from 100 to 10,000 cells",
}


def proc_cpu_s(pid: int) -> float:
    """User + system CPU seconds of a process and of its children it has waited for."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    ticks = sum(int(fields[i]) for i in (11, 12, 13, 14))
    return ticks / os.sysconf("SC_CLK_TCK")


def tree(pid: int) -> list[int]:
    out = subprocess.run(["ps", "-o", "pid=", "--ppid", str(pid)], capture_output=True, text=True).stdout.split()
    return [pid] + [p for child in out for p in tree(int(child))]


def machine_cpu_ticks() -> tuple[int, int, int]:
    """(busy, stolen, all) CPU ticks of the whole machine since boot, every core (``/proc/stat``; idle and iowait
    not busy; stolen: time the hypervisor gave the machine's cores to others)."""
    ticks = [int(t) for t in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    idle = ticks[3] + ticks[4]
    return sum(ticks) - idle, ticks[7], sum(ticks)


def machine_speed_ms(repeats: int = 3) -> float:
    """CPU milliseconds of a fixed pure-Python workload (bytecode and small objects, the kind of work the workers
    do), the median of ``repeats``: a yardstick to set cpu_ms_per_call of two machines side by side. The same code
    has measured 6-9 ms of CPU per call on one two-core machine and 13-21 on another."""

    def work() -> int:
        total, seen = 0, {}
        for i in range(300_000):
            total = (total + i * i) % 1_000_003
            seen[i % 97] = total
        return total

    times = []
    for _ in range(repeats):
        start = time.process_time()
        work()
        times.append(time.process_time() - start)
    return round(1000 * sorted(times)[len(times) // 2], 1)


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def db_server_cpu_s() -> float | None:
    """CPU seconds of the whole PostgreSQL server (its postmaster and every backend, the ended ones included),
    when it runs on this machine; None otherwise."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid()")
        backend = int(cursor.fetchone()[0])
    try:
        postmaster = int(Path(f"/proc/{backend}/stat").read_text().rsplit(")", 1)[1].split()[1])
        return sum(proc_cpu_s(p) for p in tree(postmaster))
    except (OSError, ValueError):
        return None


def db_rows_read() -> int:
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_stat_clear_snapshot()")
        cursor.execute("SELECT tup_returned + tup_fetched FROM pg_stat_database WHERE datname = current_database()")
        return int(cursor.fetchone()[0])


def db_setting(name: str) -> str:
    with connection.cursor() as cursor:
        cursor.execute(f"SHOW {name}")
        return str(cursor.fetchone()[0])


SYSTEM_SCHEMAS = "('pg_catalog', 'information_schema', 'pg_toast')"


def rows_read_by_table() -> dict[str, int]:
    """Rows read as PostgreSQL's tup_returned counts them: each table's sequential-scan rows and each index's
    entries, by name; the system catalogs' together."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_stat_clear_snapshot()")
        cursor.execute(
            f"SELECT CASE WHEN schemaname IN {SYSTEM_SCHEMAS} THEN 'catalogs' ELSE relname || ' (sequential)' END, "
            "sum(coalesce(seq_tup_read, 0)) FROM pg_stat_all_tables GROUP BY 1 "
            f"UNION ALL SELECT CASE WHEN schemaname IN {SYSTEM_SCHEMAS} THEN 'catalogs' ELSE indexrelname END, "
            "sum(idx_tup_read) FROM pg_stat_all_indexes GROUP BY 1"
        )
        rows: dict[str, int] = {}
        for name, count in cursor.fetchall():
            rows[name] = rows.get(name, 0) + int(count)
        return rows


def start_worker(queues: str, pool: str, concurrency: int, query_log: str) -> subprocess.Popen[bytes]:
    from tests.workers import test_database_url

    env = os.environ | {"DATABASE_URL": test_database_url(), "EVALPLATFORM_QUERY_LOG": query_log}
    args = [sys.executable, "-m", "celery", "-A", "evalplatform", "worker", f"--pool={pool}"]
    args += [f"--concurrency={concurrency}", "-Q", queues, "--loglevel=WARNING", "--without-gossip"]
    args += [
        "--without-mingle",
        "--without-heartbeat",
        "-n",
        f"bench-{queues.split(',')[0]}-%h-{len(glob.glob(query_log + '*'))}-{time.time_ns()}",
    ]
    return subprocess.Popen(args, cwd=REPO, env=env, stdout=subprocess.DEVNULL)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--cells", type=int, default=200)
    parser.add_argument("--latency", type=float, default=0.05, help="Seconds the fake provider takes per call.")
    parser.add_argument("--workers", type=int, default=1, help="Model-calling worker processes.")
    parser.add_argument("--slots", type=int, default=16, help="Threads per model-calling worker.")
    parser.add_argument("--concurrency", type=int, default=16, help="The endpoint's concurrency limit C.")
    parser.add_argument("--timeout", type=float, default=3600)
    parser.add_argument("--json", type=Path)
    options = parser.parse_args()
    # Stopped (bench_run_matrix.py interrupted, a timeout), it still stops its workers and drops its database.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    if connection.vendor != "postgresql" or not settings.CELERY_BROKER_URL.startswith(("redis", "amqp")):
        raise SystemExit("needs DATABASE_URL on PostgreSQL and CELERY_BROKER_URL on Redis or RabbitMQ")
    if db_setting("autovacuum") != "on":
        print("warning: PostgreSQL's autovacuum is off: rows read per cell will grow with the run (runs.W001)")
    name = create_bench_database("throughput")
    log_dir = tempfile.mkdtemp(prefix="bench-queries-")
    workers: list[subprocess.Popen[bytes]] = []
    try:
        with JudgeServer(latency_s=options.latency) as server:
            ModelEndpoint.objects.create(
                name=OWN,
                provider="openai_compatible",
                model_id="judge",
                base_url=server.base_url,
                mode="completion",
                max_concurrency=options.concurrency,
                timeout_s=60,
                max_attempts=3,
            )
            dataset = make_dataset(options.cells)
            for i in range(options.workers):
                workers.append(start_worker(settings.QUEUE_LLM, "threads", options.slots, f"{log_dir}/llm{i}"))
            workers.append(
                start_worker(
                    f"{settings.QUEUE_EMBEDDINGS},{settings.QUEUE_GRAPHS},{settings.CELERY_TASK_DEFAULT_QUEUE}",
                    "prefork",
                    1,
                    f"{log_dir}/other",
                )
            )
            deadline = time.monotonic() + 120
            while len(app.control.ping(timeout=1.0) or []) < len(workers):
                if time.monotonic() > deadline:
                    raise SystemExit("the workers did not start")
            # The workers settle first: the embeddings worker loads its encoder as it starts (a one-off per process).
            speed_before = machine_speed_ms()
            settled, cpu_before = time.monotonic() + 60, -1.0
            while True:
                cpu_now = sum(proc_cpu_s(p) for w in workers for p in tree(w.pid))
                if cpu_now - cpu_before < 0.05 or time.monotonic() > settled:
                    break
                cpu_before = cpu_now
                time.sleep(1.0)
            cpu_before = cpu_now
            cpu_before_llm = sum(proc_cpu_s(p) for w in workers[:-1] for p in tree(w.pid))
            rows_before, tables_before = db_rows_read(), rows_read_by_table()
            db_cpu_before = db_server_cpu_s()
            machine_before = machine_cpu_ticks()
            provider_cpu_before = proc_cpu_s(os.getpid())
            from evalplatform.corpus.models import Dataset

            started = time.perf_counter()
            run = run_launch(
                dataset=Dataset.objects.get(name=dataset),
                spec={"models": [OWN], "evaluators": [OWN], "conditions": ["divergent"], "temperatures": [0.2]},
            )
            peak_rss = 0.0
            while True:
                run.refresh_from_db()
                peak_rss = max([peak_rss] + [rss_mb(p) for w in workers[:-1] for p in tree(w.pid)])
                if (
                    run.status not in (Run.Status.QUEUED, Run.Status.RUNNING)
                    or time.perf_counter() - started > options.timeout
                ):
                    break
                time.sleep(0.5)
            elapsed = time.perf_counter() - started
            machine_after = machine_cpu_ticks()
            provider_cpu = proc_cpu_s(os.getpid()) - provider_cpu_before
            time.sleep(1.0)  # the statistics collector flushes about every half second
            calls = len(server.requests)
            # Every cell asks its own question, so a prompt the provider saw twice is a call made twice (a race, a
            # redelivery): waste, or worse.
            repeated = calls - len(set(server.requests))
            cpu = sum(proc_cpu_s(p) for w in workers for p in tree(w.pid)) - cpu_before
            cpu_llm = sum(proc_cpu_s(p) for w in workers[:-1] for p in tree(w.pid)) - cpu_before_llm
            rows = db_rows_read() - rows_before
            by_table = {k: v - tables_before.get(k, 0) for k, v in rows_read_by_table().items()}
            db_cpu_after = db_server_cpu_s()
            queries = sum(int(Path(f).read_text() or 0) for f in glob.glob(f"{log_dir}/*"))
            peak = server.peak_in_flight
        admin = User.objects.create_superuser("bench-admin")
        client = Client()
        client.force_login(admin)
        timings = {}
        for label, url in (
            ("page_seconds", f"/runs/{run.pk}/"),
            ("results_api_seconds", f"/api/runs/{run.pk}/results/"),
        ):
            t0 = time.perf_counter()
            assert client.get(url).status_code == 200, url
            timings[label] = time.perf_counter() - t0
        bound = options.concurrency / options.latency
        figures = {
            "cells": options.cells,
            "latency_s": options.latency,
            "workers": options.workers,
            "concurrency": options.concurrency,
            "status": run.status,
            "seconds": round(elapsed, 2),
            "llm_calls": calls,
            "calls_per_s": round(calls / elapsed, 2),
            "bound_calls_per_s": bound,
            "peak_in_flight": peak,
            "repeated_calls": repeated,
            "ratio_to_bound": round(calls / elapsed / bound, 3),
            "cpu_ms_per_call": round(1000 * cpu / max(1, calls), 2),
            # of which the model-calling workers (the rest: the ASS batches, the feeder, loading the encoder)
            "llm_worker_cpu_ms_per_call": round(1000 * cpu_llm / max(1, calls), 2),
            # the PostgreSQL server's own CPU (a local server: every database on it, a CI run beside it too)
            "db_server_cpu_ms_per_call": (
                round(1000 * (db_cpu_after - db_cpu_before) / max(1, calls), 2)
                if db_cpu_before is not None and db_cpu_after is not None
                else None
            ),
            # The fake provider's own CPU (this process: its HTTP server threads, and the loop that watches the run)
            "provider_cpu_ms_per_call": round(1000 * provider_cpu / max(1, calls), 2),
            # The whole machine's cores busy during the run (the fake provider and PostgreSQL included): near 1, the
            # ratio measures the machine, not the provider.
            "machine_cpu_busy": round(
                (machine_after[0] - machine_before[0]) / max(1, machine_after[2] - machine_before[2]), 3
            ),
            # The share of the machine's time its hypervisor gave to others during the run (a shared machine)
            "machine_cpu_stolen": round(
                (machine_after[1] - machine_before[1]) / max(1, machine_after[2] - machine_before[2]), 3
            ),
            # The yardstick's CPU ms before and after the run (machine_speed_ms): cpu_ms_per_call scales with it
            "machine_speed_ms": [speed_before, machine_speed_ms()],
            "queries_per_cell": round(queries / options.cells, 1),
            "rows_read_per_cell": round(rows / options.cells, 1),
            "worker_rss_mb": round(peak_rss, 1),
            # Off, every dead index entry a run's queues leave is read again until the run ends (runs.W001)
            "db_autovacuum": db_setting("autovacuum"),
        } | {k: round(v, 3) for k, v in timings.items()}
        # Where the rows read come from: the five tables (sequential scans) or indexes read most, per cell.
        top = sorted(by_table.items(), key=lambda item: -item[1])[:5]
        figures["rows_read_per_cell_by_table"] = {k: round(v / options.cells, 1) for k, v in top if v}
        for key, value in figures.items():
            print(f"{key:>20}: {value}" + (f"   (target {TARGETS[key]})" if key in TARGETS else ""))
        if options.json:
            options.json.write_text(json.dumps(figures, indent=2))
    finally:
        for worker in workers:
            worker.terminate()
        for worker in workers:
            try:
                worker.wait(timeout=30)
            except subprocess.TimeoutExpired:
                worker.kill()
        from tests.workers import purge_queue

        for queue in (settings.QUEUE_LLM, settings.QUEUE_EMBEDDINGS, settings.QUEUE_GRAPHS):
            purge_queue(queue)  # what a cut-off run left; the default queue's countdowns are dropped with the workers
        purge_queue(settings.CELERY_TASK_DEFAULT_QUEUE)
        connection.creation.destroy_test_db(name, verbosity=0)


if __name__ == "__main__":
    main()
