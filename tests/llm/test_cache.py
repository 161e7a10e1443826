from __future__ import annotations

import multiprocessing
from pathlib import Path

import pytest

from evalplatform.llm.cache import InMemoryCache, SQLiteCache, cache_key
from evalplatform.llm.types import LLMRequest, LLMResponse


def _key(request: LLMRequest, provider: str = "p", version: str = "v1") -> str:
    return cache_key(provider, request.model, request.canonical(), version)


BASE = LLMRequest(model="m", prompt="Q", temperature=0.2, top_p=0.9, top_k=50, seed=1)


def test_key_is_deterministic_sha256_hex() -> None:
    key = _key(BASE)
    assert key == _key(LLMRequest(model="m", prompt="Q", temperature=0.2, top_p=0.9, top_k=50, seed=1))
    assert len(key) == 64 and int(key, 16) >= 0


@pytest.mark.parametrize(
    "changed",
    [
        LLMRequest(model="m", prompt="Q", temperature=0.2, top_p=0.9, top_k=50, seed=2),
        LLMRequest(model="m", prompt="Q", temperature=0.7, top_p=0.9, top_k=50, seed=1),
        LLMRequest(model="m", prompt="Q", temperature=0.2, top_p=0.8, top_k=50, seed=1),
        LLMRequest(model="m", prompt="Q", temperature=0.2, top_p=0.9, top_k=40, seed=1),
        LLMRequest(model="m", prompt="Q", temperature=0.2, top_p=0.9, top_k=50, seed=1, max_tokens=9),
        LLMRequest(model="m", prompt="Q", temperature=0.2, top_p=0.9, top_k=50, seed=1, stop=("\n",)),
        LLMRequest(model="m", prompt="Q", temperature=0.2, top_p=0.9, top_k=50, seed=1, grammar="g"),
        LLMRequest(model="m", prompt="Q?", temperature=0.2, top_p=0.9, top_k=50, seed=1),
        LLMRequest(model="m2", prompt="Q", temperature=0.2, top_p=0.9, top_k=50, seed=1),
    ],
)
def test_any_change_of_sampling_seed_or_content_changes_the_key(changed: LLMRequest) -> None:
    assert _key(changed) != _key(BASE)


def test_provider_and_prompt_version_are_in_the_key() -> None:
    assert _key(BASE, provider="other") != _key(BASE)
    assert _key(BASE, version="v2") != _key(BASE)


RESPONSE = LLMResponse("answer", "stop", 10, 2, 0.1, {"id": "1"})


def test_in_memory_cache_miss_then_hit_and_first_writer_wins() -> None:
    cache = InMemoryCache()
    assert cache.get("k") is None
    cache.put("k", RESPONSE)
    cache.put("k", RESPONSE.with_changes(text="other"))
    assert cache.get("k") == RESPONSE
    assert len(cache) == 1


def test_sqlite_cache_persists_across_instances(tmp_path: Path) -> None:
    path = tmp_path / "cache.sqlite3"
    first = SQLiteCache(path)
    assert first.get("k") is None
    first.put("k", RESPONSE)
    first.put("k", RESPONSE.with_changes(text="other"))
    first.close()
    second = SQLiteCache(path)
    assert second.get("k") == RESPONSE
    assert len(second) == 1


def _writer(path: str, worker: int) -> None:
    cache = SQLiteCache(path)
    for i in range(20):
        cache.put("shared", LLMResponse(f"w{worker}", "stop", 1, 1, 0.0))
        cache.put(f"w{worker}-{i}", LLMResponse(f"w{worker}-{i}", "stop", 1, 1, 0.0))
    cache.close()


def test_sqlite_cache_is_safe_for_several_processes(tmp_path: Path) -> None:
    path = str(tmp_path / "cache.sqlite3")
    SQLiteCache(path).close()
    context = multiprocessing.get_context("spawn")
    processes = [context.Process(target=_writer, args=(path, w)) for w in range(3)]
    for process in processes:
        process.start()
    for process in processes:
        process.join(timeout=60)
        assert process.exitcode == 0
    cache = SQLiteCache(path)
    assert len(cache) == 3 * 20 + 1
    shared = cache.get("shared")
    assert shared is not None and shared.text in {"w0", "w1", "w2"}
    assert cache.get("w2-19") == LLMResponse("w2-19", "stop", 1, 1, 0.0)
