from django.apps import AppConfig


class AnnotationConfig(AppConfig):
    name = "annotation"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        # Receivers of the signals the layers below send (scoring.signals.tau_diagnosed): README, Layout.
        from annotation import receivers  # noqa: F401
