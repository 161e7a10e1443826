from django.apps import AppConfig


class ScoringConfig(AppConfig):
    name = "scoring"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        # The methods' stages join the runs app's registry (evalplatform.runs.stages): the runs app reaches the
        # methods only through it, so it never imports them (README, Layout).
        from evalplatform.runs.stages import stage_register
        from scoring.cdke.stages import CDKE_STAGES
        from scoring.graph_stage import GRAPH

        for stage in (*CDKE_STAGES, GRAPH):
            stage_register(stage)
        from scoring import receivers  # noqa: F401  (the signals of the runs app: README, Layout)
