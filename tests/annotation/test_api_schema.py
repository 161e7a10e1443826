"""/api/schema/ documents every annotation operation, and what the API really answers carries exactly the fields
the schema names (the views build their answers by hand, so the two could drift apart)."""

from typing import Any

import pytest
from django.test import Client
from django.urls import reverse

from annotation.services import tau_item_create

pytestmark = pytest.mark.django_db

OPERATIONS = [
    ("/api/annotation/queue/", "get", "200"),
    ("/api/annotation/next/{kind}/", "post", "200"),
    ("/api/annotation/assignments/", "get", "200"),
    ("/api/annotation/reviews/{id}/", "get", "200"),
    ("/api/annotation/reviews/{id}/submit/", "post", "201"),
    ("/api/annotation/tau/{id}/", "get", "200"),
    ("/api/annotation/tau/{id}/submit/", "post", "201"),
    ("/api/annotation/consensus/{id}/", "get", "200"),
    ("/api/annotation/consensus/{id}/decide/", "post", "201"),
    ("/api/annotation/consensus/{id}/reopen/", "post", "200"),
]


@pytest.fixture
def schema(world: Any) -> dict[str, Any]:
    client = Client()
    client.force_login(world.admin)
    response = client.get("/api/schema/?format=json")
    assert response.status_code == 200
    return response.json()


def _resolve(schema: dict[str, Any], node: dict[str, Any]) -> dict[str, Any]:
    """Follow $ref, and the one-element allOf a nullable reference is written as."""
    while "$ref" in node or len(node.get("allOf", [])) == 1:
        node = node["allOf"][0] if "allOf" in node else node
        if "$ref" in node:
            node = schema["components"]["schemas"][node["$ref"].rsplit("/", 1)[1]]
    return node


def _fields(schema: dict[str, Any], node: dict[str, Any]) -> set[str]:
    return set(_resolve(schema, node)["properties"])


def _response_schema(schema: dict[str, Any], path: str, method: str, code: str) -> dict[str, Any]:
    assert path in schema["paths"], f"{path} is not in the schema"
    operation = schema["paths"][path][method]
    return _resolve(schema, operation["responses"][code]["content"]["application/json"]["schema"])


@pytest.mark.parametrize(("path", "method", "code"), OPERATIONS)
def test_every_annotation_operation_documents_its_answer(
    schema: dict[str, Any], path: str, method: str, code: str
) -> None:
    body = _response_schema(schema, path, method, code)
    assert body.get("properties") or body.get("oneOf"), f"{method} {path} has an empty answer in the schema"


def test_next_documents_both_kinds_and_the_empty_queue(schema: dict[str, Any]) -> None:
    operation = schema["paths"]["/api/annotation/next/{kind}/"]["post"]
    assert "204" in operation["responses"]
    (kind,) = [p for p in operation["parameters"] if p["name"] == "kind"]
    assert kind["schema"]["enum"] == ["review", "tau"]
    body = _response_schema(schema, "/api/annotation/next/{kind}/", "post", "200")
    assert set(body["discriminator"]["mapping"]) == {"review", "tau"}


def test_real_answers_carry_exactly_the_documented_fields(world: Any, schema: dict[str, Any]) -> None:
    def documented(path: str, method: str, code: str) -> set[str]:
        return set(_response_schema(schema, path, method, code)["properties"])

    anna, bob = Client(), Client()
    anna.force_login(world.annotator)
    bob.force_login(world.other)
    queue = anna.get(reverse("annotation:api-queue")).json()
    assert set(queue) == documented("/api/annotation/queue/", "get", "200")
    queue_schema = _response_schema(schema, "/api/annotation/queue/", "get", "200")
    assert set(queue["review"]) == _fields(schema, queue_schema["properties"]["review"])

    next_schema = _response_schema(schema, "/api/annotation/next/{kind}/", "post", "200")
    by_kind = {k: _fields(schema, {"$ref": ref}) for k, ref in next_schema["discriminator"]["mapping"].items()}
    review = anna.post(reverse("annotation:api-next", args=["review"])).json()
    assert set(review) == by_kind["review"] == documented("/api/annotation/reviews/{id}/", "get", "200")
    verdict = {"context_coherent": True, "question_valid": True, "ground_truth": "Lyon, 1901"}
    submitted = anna.post(reverse("annotation:api-review-submit", args=[review["id"]]), verdict, "application/json")
    assert set(submitted.json()) == documented("/api/annotation/reviews/{id}/submit/", "post", "201")
    again = anna.get(reverse("annotation:api-review", args=[review["id"]])).json()
    assert set(again["review"]) == _fields(
        schema, _response_schema(schema, "/api/annotation/reviews/{id}/", "get", "200")["properties"]["review"]
    )

    second = bob.post(reverse("annotation:api-next", args=["review"])).json()
    bob.post(reverse("annotation:api-review-submit", args=[second["id"]]), verdict, "application/json")
    consensus = bob.get(reverse("annotation:api-consensus", args=[second["item"]])).json()
    consensus_schema = _response_schema(schema, "/api/annotation/consensus/{id}/", "get", "200")
    assert set(consensus) == set(consensus_schema["properties"])
    reviews_schema = consensus_schema["properties"]["reviews"]["items"]
    assert all(set(r) == _fields(schema, reviews_schema) for r in consensus["reviews"]) and consensus["reviews"]
    decisions_schema = consensus_schema["properties"]["decisions"]["items"]
    assert all(set(d) == _fields(schema, decisions_schema) for d in consensus["decisions"])

    researcher = Client()
    researcher.force_login(world.admin)
    # Both agreed, so the rule decided: final until a reviewer reopens it.
    reopened = researcher.post(
        reverse("annotation:api-consensus-reopen", args=[second["item"]]), {"reason": "recheck"}, "application/json"
    )
    assert reopened.status_code == 200, reopened.content
    assert set(reopened.json()) == documented("/api/annotation/consensus/{id}/reopen/", "post", "200")
    decided = researcher.post(
        reverse("annotation:api-consensus-decide", args=[second["item"]]),
        {"decision": "validated", "ground_truth": "Lyon, 1901"},
        "application/json",
    )
    assert decided.status_code == 201, decided.content
    assert set(decided.json()) == documented("/api/annotation/consensus/{id}/decide/", "post", "201")

    tau_item_create(gold=[["a", "r", "b"]], answer=[["a", "r", "b"]])
    tau = anna.post(reverse("annotation:api-next", args=["tau"])).json()
    assert set(tau) == by_kind["tau"] == documented("/api/annotation/tau/{id}/", "get", "200")
    label = anna.post(
        reverse("annotation:api-tau-submit", args=[tau["id"]]),
        {"aligned": [[0, 0]], "answer_errors": {}, "gold_errors": {}},
        "application/json",
    )
    assert set(label.json()) == documented("/api/annotation/tau/{id}/submit/", "post", "201")
    rows = anna.get(reverse("annotation:api-assignments")).json()
    assert set(rows) == documented("/api/annotation/assignments/", "get", "200")
    rows_schema = _response_schema(schema, "/api/annotation/assignments/", "get", "200")
    assert {frozenset(r) for r in rows["results"]} == {
        frozenset(_fields(schema, rows_schema["properties"]["results"]["items"]))
    }


def test_the_whole_schema_generates_without_a_warning(tmp_path: Any) -> None:
    from django.core.management import call_command

    call_command("spectacular", "--fail-on-warn", "--validate", "--file", str(tmp_path / "schema.yml"))
