"""evalplatform: does a language model answer from its context or from what it memorised?

This package holds the Django project (settings, URLs, the Celery app in ``evalplatform.celery``, roles and
shared permissions) and the apps every method builds on (audit, corpus, runs) beside the plain-Python LLM
layer (``evalplatform.llm``), which loads neither Django nor Celery."""
