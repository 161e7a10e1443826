"""Signals the scoring app sends to the layers above it, which connect to them at start-up (a lower layer never
imports a higher one).

``tau_diagnosed``: a low-scoring answer got its TAU diagnosis (sent inside the transaction that stores it, once
per diagnosed item, for the run's first S3KG variant), with ``graph_score`` (the GraphScore diagnosed), and
``answer`` and ``gold``, its answer and gold triplets as lists of [head, relation, tail] in the order TAU's
indices refer to. The annotation app queues the item for three blind alignment labels."""

from django.dispatch import Signal

tau_diagnosed = Signal()
