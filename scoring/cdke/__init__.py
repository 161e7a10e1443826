"""CDK-E, Context-Driven Divergent Knowledge Evaluation (Piñeiro-Martín et al., "Context Is King", Applied
Sciences 15(3):1192, 2025), in one package whose modules follow the method's steps:

plain Python (importable in a notebook, no Django):
  metrics    ASS clipping, FC (the statement F1), AC, the judge composite
  prompts    every prompt: fabricate, questions, answer, judge (versioned); grammars: their output shapes
  verdicts   the strict parsers of the generator's and the judges' outputs
the platform's side (Django, Celery):
  fabricate  divergent contexts from real texts         questions  draft questions about them
  answer     the candidates answer each cell            judge      ASS and every evaluator's metrics
  results    Table 2, correlations, error classes       stages     the steps registered with the runs app
  tasks      the Celery tasks of answering and judging

``import scoring.cdke`` loads the arithmetic only."""

from scoring.cdke.metrics import JudgeComposite, answer_correctness, clip_unit, statement_f1

__all__ = ["JudgeComposite", "answer_correctness", "clip_unit", "statement_f1"]
