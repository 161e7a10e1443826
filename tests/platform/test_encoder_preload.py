"""A worker process that takes the embeddings queue loads its encoder when it starts, in the background, so that
the first ASS batch does not pay for it (5 s of CPU); a process on any other queue (the llm threads, the default
queue of `make serve`) loads nothing."""

import threading

from scoring.cdke.tasks import encoder_preload


class FakeEncoder:
    def __init__(self) -> None:
        self.loads = 0
        self.loaded = threading.Event()

    def load(self) -> None:
        self.loads += 1
        self.loaded.set()


def test_a_process_on_the_embeddings_queue_loads_the_encoder_in_the_background() -> None:
    encoder = FakeEncoder()
    thread = encoder_preload(["celery", "embeddings", "graphs"], encoder=lambda: encoder)
    assert thread is not None and thread.daemon
    thread.join(timeout=10)
    assert encoder.loads == 1


def test_a_process_on_other_queues_loads_nothing() -> None:
    encoder = FakeEncoder()
    for queues in (["llm"], ["celery"], []):
        assert encoder_preload(queues, encoder=lambda: encoder) is None
    assert encoder.loads == 0
