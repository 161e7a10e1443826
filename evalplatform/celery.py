"""The Celery application: configuration comes from Django settings (``CELERY_*``)."""

import os
from typing import Any

from celery import Celery
from celery.signals import worker_init

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "evalplatform.settings")

app = Celery("evalplatform")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()


@worker_init.connect
def _one_torch_thread_per_process(**kwargs: Any) -> None:
    """Worker processes run side by side: each encodes with one torch thread unless told otherwise."""
    os.environ.setdefault("EVALPLATFORM_TORCH_THREADS", "1")
