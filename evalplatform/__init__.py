"""evalplatform: does a language model answer from its context or from what it memorised?"""

from evalplatform.celery import app as celery_app

__all__ = ["celery_app"]
