"""Signals the runs app sends to the layers above it, which connect to them at start-up (a lower layer never
imports a higher one).

``run_finished``: a run's last unit was counted and the run is done (sent once the finishing transaction commits),
with ``run_id``. The scoring app then computes and keeps the run's results (``scoring.snapshots``)."""

from django.dispatch import Signal

run_finished = Signal()
