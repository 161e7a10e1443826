"""GBNF grammars (llama.cpp) and JSON schemas for every structured output of CDK-E. Each grammar admits exactly
the JSON shape its parser in ``scoring.cdke.verdicts`` accepts, written compactly (single spaces)."""

from __future__ import annotations

from typing import Any

# A JSON string without raw control characters; escapes limited to the common ones.
_STRING = r"""string ::= "\"" char* "\""
char ::= [^"\\\x7F\x00-\x1F] | "\\" ["\\/bfnrt]"""
_STRING_LIST = 'list ::= "[" ( string ( ", " string )* )? "]"'

STATEMENTS_GRAMMAR = "\n".join(['root ::= " "? "{\\"statements\\": " list "}"', _STRING_LIST, _STRING])

CLASSIFICATION_GRAMMAR = "\n".join(
    ['root ::= " "? "{\\"TP\\": " list ", \\"FP\\": " list ", \\"FN\\": " list "}"', _STRING_LIST, _STRING]
)

# 0, 0.25, 0.5, 0.75, 1: the Acc / Cm scale, CDK-E (Context Is King) evaluation section.
SCALE_GRAMMAR = 'root ::= " "? "{\\"score\\": " ( "0" | "0.25" | "0.5" | "0.75" | "1" ) "}"'

LAV_GRAMMAR = 'root ::= " "? "{\\"verdict\\": \\"" ( "valid" | "invalid" ) "\\"}"'

FABRICATION_GRAMMAR = "\n".join(
    [
        'root ::= " "? "{\\"divergent_text\\": " string ", \\"alterations\\": [" ( alt ( ", " alt )* )? "]}"',
        'alt ::= "{\\"kind\\": \\"" kind "\\", \\"original\\": " string ", \\"divergent\\": " string "}"',
        'kind ::= "date" | "name" | "place" | "sequence" | "event"',
        _STRING,
    ]
)

QUESTIONS_GRAMMAR = "\n".join(
    [
        'root ::= " "? "{\\"questions\\": [" item ( ", " item )* "]}"',
        'item ::= "{\\"question\\": " string ", \\"ground_truth\\": " string "}"',
        _STRING,
    ]
)

# hallucination / context_misalignment / verbose: paper C's error analysis of wrong answers.
ERROR_TYPES = ("hallucination", "context_misalignment", "verbose")
ERROR_TYPE_GRAMMAR = 'root ::= " "? "{\\"error\\": \\"" ( "hallucination" | "context_misalignment" | "verbose" ) "\\"}"'

# The authors' published output formats (plain text, not JSON): two scores from 0.0 to 1.0, and LAV 1 / 0.
_UNIT_NUMBER = 'unit ::= ( "0" ( "." [0-9] [0-9]? )? ) | ( "1" ( "." "0" "0"? )? )'
AUTHORS_ACC_CM_GRAMMAR = "\n".join(['root ::= "Accuracy: " unit "\\nCompleteness: " unit', _UNIT_NUMBER])
AUTHORS_LAV_GRAMMAR = 'root ::= "LAV: " ( "0" | "1" )'

ALTERATION_KINDS = ("date", "name", "place", "sequence", "event")
SCALE_VALUES = (0.0, 0.25, 0.5, 0.75, 1.0)


def _object(properties: dict[str, Any]) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": properties,
        "required": sorted(properties),
        "additionalProperties": False,
    }


_STRINGS: dict[str, Any] = {"type": "array", "items": {"type": "string"}}

STATEMENTS_SCHEMA = _object({"statements": _STRINGS})
CLASSIFICATION_SCHEMA = _object({"TP": _STRINGS, "FP": _STRINGS, "FN": _STRINGS})
SCALE_SCHEMA = _object({"score": {"type": "number", "enum": list(SCALE_VALUES)}})
LAV_SCHEMA = _object({"verdict": {"type": "string", "enum": ["valid", "invalid"]}})
ERROR_TYPE_SCHEMA = _object({"error": {"type": "string", "enum": list(ERROR_TYPES)}})
FABRICATION_SCHEMA = _object(
    {
        "divergent_text": {"type": "string"},
        "alterations": {
            "type": "array",
            "items": _object(
                {
                    "kind": {"type": "string", "enum": list(ALTERATION_KINDS)},
                    "original": {"type": "string"},
                    "divergent": {"type": "string"},
                }
            ),
        },
    }
)
QUESTIONS_SCHEMA = _object(
    {
        "questions": {
            "type": "array",
            "minItems": 1,
            "items": _object({"question": {"type": "string"}, "ground_truth": {"type": "string"}}),
        }
    }
)
