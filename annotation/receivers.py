"""What the annotation app does when a lower layer reports something (connected in ``AnnotationConfig.ready``):
a TAU diagnosis queues its item for three blind alignment labels, in the same transaction."""

from __future__ import annotations

from typing import Any

from django.dispatch import receiver

from annotation.models import TauItem
from annotation.services.tau import tau_item_create
from scoring.models import GraphScore
from scoring.signals import tau_diagnosed


@receiver(tau_diagnosed, dispatch_uid="annotation.queue_tau_item")
def queue_tau_item(
    sender: Any, *, graph_score: GraphScore, answer: list[list[str]], gold: list[list[str]], **kwargs: Any
) -> None:
    if TauItem.objects.filter(graph_score=graph_score).exists():  # queued already (by a researcher's campaign)
        return
    tau_item_create(gold=gold, answer=answer, generation=graph_score.generation, graph_score=graph_score)
