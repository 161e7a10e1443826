"""Finding 19: the local llama.cpp server outlives each command on purpose, but its reuse hung on a 2-second health
check: under load the check timed out, a second server started and the first was orphaned (five servers, about
10 GB, in one checkout). Reuse now waits for a busy server, a silent one is stopped before another starts,
``make llm-stop`` stops every server the checkout started, and ``make demo`` ends by saying one still runs.

Stand-ins for the server are real HTTP server processes (tests/llm/slow_models_server.py) that answer late."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from evalplatform.llm import local_server
from tests.conftest import REPO


@pytest.fixture
def runtime(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("EVALPLATFORM_RUNTIME_DIR", str(tmp_path))
    return tmp_path.resolve()


@pytest.fixture
def processes() -> Iterator[list[subprocess.Popen[bytes]]]:
    started: list[subprocess.Popen[bytes]] = []
    yield started
    for process in started:
        if process.poll() is None:
            process.kill()
            process.wait()


def _serve(processes: list, owner: Path | None, delay: float) -> int:
    """A stand-in server answering after ``delay`` seconds, marked as started by ``owner``; its port."""
    port = local_server.free_port()
    env = {k: v for k, v in os.environ.items() if k != local_server.OWNER_ENV}
    if owner is not None:
        env[local_server.OWNER_ENV] = str(owner)
    process = subprocess.Popen(
        [sys.executable, "-m", "tests.llm.slow_models_server", str(port), str(delay)], cwd=REPO, env=env
    )
    processes.append(process)
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        with socket.socket() as sock:
            if sock.connect_ex(("127.0.0.1", port)) == 0:
                return port
        time.sleep(0.05)
    raise RuntimeError("the stand-in server did not start")


def _record(process: subprocess.Popen[bytes], port: int) -> None:
    local_server._write_state(local_server.ServerState(process.pid, port, "gemma.gguf"))


def _no_second_start(monkeypatch: pytest.MonkeyPatch) -> list[dict]:
    starts: list[dict] = []

    def start(**options: object) -> None:
        starts.append(options)
        raise AssertionError("a second server was started")

    monkeypatch.setattr(local_server, "start_server", start)
    return starts


def test_reuse_waits_for_a_busy_server_instead_of_starting_a_second(runtime, processes, monkeypatch) -> None:
    port = _serve(processes, runtime, delay=3.0)  # slower than the old 2-second check
    _record(processes[0], port)
    starts = _no_second_start(monkeypatch)
    assert local_server.ensure_local_server(timeout_s=60) == f"http://127.0.0.1:{port}/v1"
    assert not starts and processes[0].poll() is None


def test_a_server_still_silent_after_the_start_timeout_is_stopped_before_another_starts(
    runtime, processes, monkeypatch
) -> None:
    port = _serve(processes, runtime, delay=600.0)
    _record(processes[0], port)
    replacement = local_server.ServerState(pid=os.getpid(), port=1, model_path="x")
    monkeypatch.setattr(local_server, "start_server", lambda **options: (None, replacement))
    assert local_server.ensure_local_server(timeout_s=3) == replacement.base_url
    assert not local_server._pid_alive(processes[0].pid)  # stopped, not orphaned


def test_a_recorded_pid_that_is_not_ours_is_neither_waited_for_nor_stopped(runtime, processes, monkeypatch) -> None:
    port = _serve(processes, None, delay=600.0)  # another program that happens to have the recorded pid
    _record(processes[0], port)
    replacement = local_server.ServerState(pid=os.getpid(), port=1, model_path="x")
    monkeypatch.setattr(local_server, "start_server", lambda **options: (None, replacement))
    started = time.monotonic()
    assert local_server.ensure_local_server(timeout_s=60) == replacement.base_url
    assert time.monotonic() - started < 30 and processes[0].poll() is None


def test_llm_stop_stops_every_server_this_checkout_started(runtime, processes, tmp_path_factory) -> None:
    recorded = _serve(processes, runtime, delay=0.0)
    _record(processes[0], recorded)
    _serve(processes, runtime, delay=0.0)  # orphans an earlier command left behind
    _serve(processes, runtime, delay=0.0)
    older = subprocess.Popen(  # a server of the old code: no marker, its model under the runtime directory
        [sys.executable, "-c", "import time; time.sleep(600)", "llama_cpp.server", "--model", str(runtime / "m.gguf")]
    )
    processes.append(older)
    other_checkout = tmp_path_factory.mktemp("other-checkout").resolve()
    _serve(processes, other_checkout, delay=0.0)
    assert sorted(local_server.servers_started_here()) == sorted(p.pid for p in processes[:4])
    assert "still runs" in local_server.status_line() and "make llm-stop" in local_server.status_line()
    assert local_server.stop_local_server() == 4
    assert [local_server._pid_alive(p.pid) for p in processes] == [False, False, False, False, True]
    assert local_server.read_state() is None
    assert local_server.status_line() == "No local model server is running."


def test_the_commands_behind_make(runtime, processes) -> None:
    env = os.environ | {"EVALPLATFORM_RUNTIME_DIR": str(runtime)}
    module = [sys.executable, "-m", "evalplatform.llm.local_server"]
    port = _serve(processes, runtime, delay=0.0)
    _record(processes[0], port)
    status = subprocess.run([*module, "--status"], cwd=REPO, env=env, capture_output=True, text=True, check=True)
    assert f"http://127.0.0.1:{port}/v1" in status.stdout and "make llm-stop" in status.stdout
    stop = subprocess.run([*module, "--stop"], cwd=REPO, env=env, capture_output=True, text=True, check=True)
    assert stop.stdout.strip() == "stopped 1 local model server(s)"
    processes[0].wait(timeout=10)


def _recipe(target: str) -> list[str]:
    lines = (REPO / "Makefile").read_text().splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(f"{target}:"))
    recipe = []
    for line in lines[start + 1 :]:
        if not line.startswith("\t"):
            break
        recipe.append(line.strip())
    return recipe


def test_make_demo_ends_by_saying_the_server_runs_and_llm_stop_stops_them_all() -> None:
    assert _recipe("demo")[-1].endswith("-m evalplatform.llm.local_server --status")
    assert _recipe("llm-stop")[-1].endswith("-m evalplatform.llm.local_server --stop")
