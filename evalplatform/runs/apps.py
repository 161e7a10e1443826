from django.apps import AppConfig


class RunsConfig(AppConfig):
    name = "evalplatform.runs"
    label = "runs"
    verbose_name = "Runs: model endpoints, runs, generations"

    def ready(self) -> None:
        # Load the Celery app in every Django process (web, commands, tests), so that the tasks it sends go to
        # the configured broker; the plain-Python packages under evalplatform do not load it.
        from evalplatform import celery  # noqa: F401
        from evalplatform.runs import checks  # noqa: F401  (registers the database checks)
