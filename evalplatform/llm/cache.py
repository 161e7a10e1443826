"""Content-addressed response cache.

The key is the sha256 of (provider name, model, the canonical request with every sampling parameter
and the seed, the prompt version): a re-run or a resumed run of the same cell is served from here and
pays nothing twice, while any change to the prompt template or to sampling misses. Runs that draw
several samples at temperature > 0 must give each sample its own seed, or every sample would be the
same cached answer.
"""

from __future__ import annotations

import json
import sqlite3
import threading
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Protocol

from evalplatform.hashing import text_hash
from evalplatform.llm.types import LLMResponse

KEY_SCHEMA = "evalplatform.llm.cache/v1"


def cache_key(provider: str, model: str, canonical_request: Mapping[str, Any], prompt_version: str) -> str:
    payload = {
        "schema": KEY_SCHEMA,
        "provider": provider,
        "model": model,
        "request": canonical_request,
        "prompt_version": prompt_version,
    }
    text = json.dumps(payload, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return text_hash(text)


class ResponseCache(Protocol):
    def get(self, key: str) -> LLMResponse | None: ...

    def put(self, key: str, response: LLMResponse) -> None: ...


class InMemoryCache:
    """A dict behind a lock; for tests and single-process runs."""

    def __init__(self) -> None:
        self._data: dict[str, str] = {}
        self._lock = threading.Lock()

    def get(self, key: str) -> LLMResponse | None:
        with self._lock:
            stored = self._data.get(key)
        return None if stored is None else LLMResponse.from_json(stored)

    def put(self, key: str, response: LLMResponse) -> None:
        with self._lock:
            self._data.setdefault(key, response.to_json())  # first writer wins, as in SQLite

    def __len__(self) -> int:
        with self._lock:
            return len(self._data)


class SQLiteCache:
    """A SQLite file shared by threads and processes: WAL journal, a busy timeout, INSERT OR IGNORE
    (the first response stored for a key stays; concurrent writers of one key do not conflict)."""

    def __init__(self, path: str | Path, *, busy_timeout_s: float = 30.0) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._busy_timeout_s = busy_timeout_s
        self._local = threading.local()
        with self._connect() as conn:
            conn.execute(
                "CREATE TABLE IF NOT EXISTS llm_response_cache ("
                " key TEXT PRIMARY KEY, response TEXT NOT NULL, created_at REAL NOT NULL)"
            )

    def _connect(self) -> sqlite3.Connection:
        conn: sqlite3.Connection | None = getattr(self._local, "conn", None)
        if conn is None:
            conn = sqlite3.connect(self.path, timeout=self._busy_timeout_s, isolation_level=None)
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute("PRAGMA synchronous=NORMAL")
            self._local.conn = conn
        return conn

    def get(self, key: str) -> LLMResponse | None:
        row = self._connect().execute("SELECT response FROM llm_response_cache WHERE key = ?", (key,)).fetchone()
        return None if row is None else LLMResponse.from_json(row[0])

    def put(self, key: str, response: LLMResponse) -> None:
        self._connect().execute(
            "INSERT OR IGNORE INTO llm_response_cache (key, response, created_at) VALUES (?, ?, ?)",
            (key, response.to_json(), time.time()),
        )

    def __len__(self) -> int:
        row = self._connect().execute("SELECT COUNT(*) FROM llm_response_cache").fetchone()
        return int(row[0])

    def close(self) -> None:
        conn: sqlite3.Connection | None = getattr(self._local, "conn", None)
        if conn is not None:
            conn.close()
            self._local.conn = None
