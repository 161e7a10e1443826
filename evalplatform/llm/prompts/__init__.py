"""Versioned prompt templates: the machinery (``PromptTemplate``); each method keeps its own prompts
(CDK-E's in ``scoring.cdke.prompts``, S3KG's extractor prompt in ``scoring.kg.llm_extractor``)."""

from __future__ import annotations

from evalplatform.llm.prompts.base import Constrain, PromptTemplate

__all__ = ["Constrain", "PromptTemplate"]
