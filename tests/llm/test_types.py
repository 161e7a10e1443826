from __future__ import annotations

import pytest

from evalplatform.llm.types import ChatMessage, LLMRequest, LLMResponse


def test_request_mode_is_chat_for_messages_and_completion_for_prompt() -> None:
    assert LLMRequest(model="m", prompt="p").mode == "completion"
    assert LLMRequest(model="m", messages=(ChatMessage("user", "hi"),)).mode == "chat"


def test_request_rejects_both_or_neither_of_prompt_and_messages() -> None:
    with pytest.raises(ValueError):
        LLMRequest(model="m")
    with pytest.raises(ValueError):
        LLMRequest(model="m", prompt="p", messages=(ChatMessage("user", "hi"),))


def test_chat_message_rejects_unknown_role() -> None:
    with pytest.raises(ValueError):
        ChatMessage("robot", "hi")


def test_canonical_has_sorted_keys_including_nested_schema_and_lists_for_tuples() -> None:
    request = LLMRequest(model="m", prompt="p", stop=("\n",), json_schema={"b": 1, "a": {"d": 2, "c": 3}})
    canonical = request.canonical()
    assert list(canonical) == sorted(canonical)
    assert list(canonical["json_schema"]) == ["a", "b"]
    assert list(canonical["json_schema"]["a"]) == ["c", "d"]
    assert canonical["stop"] == ["\n"]
    assert canonical["mode"] == "completion"


def test_list_arguments_are_frozen_to_tuples() -> None:
    request = LLMRequest(model="m", messages=[ChatMessage("user", "hi")], stop=["x"])  # type: ignore[arg-type]
    assert request.messages == (ChatMessage("user", "hi"),)
    assert request.stop == ("x",)


def test_response_json_round_trip_keeps_every_field() -> None:
    response = LLMResponse("t", "stop", 3, 4, 0.5, {"id": "x"}, cached=True, cost_usd=0.25)
    assert LLMResponse.from_json(response.to_json()) == response
