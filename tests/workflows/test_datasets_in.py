"""Datasets in from the product: an upload through the API and the datasets page writes a dataset version with its
counts; a bad file is refused with the importer's one line (file, record, field) and writes nothing; re-importing
under a name makes the next version, and a run keeps the version it used. The migration that turned the free-text
version into a number is run forwards over a row it must convert."""

import json

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import call_command

from evalplatform.audit.models import AuditEvent
from evalplatform.corpus.models import Dataset, Project, Question
from evalplatform.runs.models import Run
from tests.conftest import SAMPLE_DKD
from tests.web.conftest import World, client_for

pytestmark = pytest.mark.django_db


def sample_file(name: str = "dkd_sample.json") -> SimpleUploadedFile:
    return SimpleUploadedFile(name, SAMPLE_DKD.read_bytes(), content_type="application/json")


def bad_file() -> SimpleUploadedFile:
    document = json.loads(SAMPLE_DKD.read_text())
    del document["contexts"][1]["questions"][0]["question"]
    return SimpleUploadedFile("broken.json", json.dumps(document).encode(), content_type="application/json")


def test_upload_through_the_api_gives_201_with_the_counts_and_an_audit_event(world: World) -> None:
    client = client_for(world, "researcher")
    response = client.post(
        "/api/datasets/",
        {"file": sample_file(), "format": "dkd", "name": "uploaded", "project": "divergent"},
        format="multipart",
    )
    assert response.status_code == 201, response.content
    body = response.json()
    expected = len(json.loads(SAMPLE_DKD.read_text())["contexts"])
    assert body["name"] == "uploaded" and body["version"] == 1 and body["project"] == "divergent"
    assert body["counts"]["contexts"] == expected and body["counts"]["questions"] > 0
    assert body["question_status"]["draft"] == body["counts"]["questions"]
    dataset = Dataset.objects.get(name="uploaded")
    assert dataset.created_by == world.users["researcher"]
    assert AuditEvent.objects.filter(action="dataset.import", dataset_id=dataset.pk).count() == 1


def test_a_bad_file_is_a_400_with_the_importers_line_and_nothing_is_written(world: World) -> None:
    client = client_for(world, "researcher")
    before = (Dataset.objects.count(), Question.objects.count(), AuditEvent.objects.count())
    response = client.post(
        "/api/datasets/", {"file": bad_file(), "format": "dkd", "name": "broken"}, format="multipart"
    )
    assert response.status_code == 400
    message = response.json()["file"][0]
    assert message.startswith("broken.json: record contexts[1]")
    assert "field 'question': is required" in message
    assert "/tmp" not in message  # names the uploaded file, not where it was written
    assert (Dataset.objects.count(), Question.objects.count(), AuditEvent.objects.count()) == before


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"format": "dkd", "name": "x", "kg": "dependency"}, "kg"),  # an unknown field is refused, never dropped
        ({"format": "dkd-dir", "name": "x"}, "format"),  # a folder format cannot be one uploaded file
        ({"format": "dkd", "name": "x", "project": "nope"}, "project"),
    ],
)
def test_upload_refuses_unknown_fields_formats_and_projects(world: World, body: dict[str, str], field: str) -> None:
    client = client_for(world, "researcher")
    response = client.post("/api/datasets/", {"file": sample_file(), **body}, format="multipart")
    assert response.status_code == 400 and field in response.json(), response.content
    assert not Dataset.objects.filter(name="x").exists()


def test_a_project_is_given_only_by_its_members_and_annotators_cannot_upload(world: World) -> None:
    Project.objects.create(name="elsewhere")
    response = client_for(world, "researcher").post(
        "/api/datasets/", {"file": sample_file(), "format": "dkd", "project": "elsewhere"}, format="multipart"
    )
    assert response.status_code == 400 and "not a member" in response.json()["file"][0]
    response = client_for(world, "annotator").post("/api/datasets/", {"file": sample_file(), "format": "dkd"})
    assert response.status_code == 403


def test_reimport_makes_a_new_version_and_a_run_keeps_the_version_it_used(world: World) -> None:
    client = client_for(world, "researcher")
    assert client.post("/api/datasets/", {"file": sample_file(), "format": "dkd", "name": "study"}).status_code == 201
    first = Dataset.objects.get(name="study")
    run = Run.objects.create(kind=Run.Kind.CDKE, dataset=first, spec={"models": ["cand"]}, created_by=first.created_by)
    second = client.post("/api/datasets/", {"file": sample_file(), "format": "dkd", "name": "study"})
    assert second.status_code == 201 and second.json()["version"] == 2
    assert second.json()["versions"] == [2, 1]
    run.refresh_from_db()
    assert run.dataset.version == 1
    assert client.get(f"/api/runs/{run.pk}/").json()["dataset_version"] == 1
    # By name alone the latest version answers; ?version=N any other; the list shows each name once.
    assert client.get("/api/datasets/study/").json()["version"] == 2
    assert client.get("/api/datasets/study/?version=1").json()["version"] == 1
    assert client.get("/api/datasets/study/?version=9").status_code == 404
    names = [d["name"] for d in client.get("/api/datasets/").json()["results"]]
    assert names.count("study") == 1
    every = client.get("/api/datasets/?all_versions=true").json()["results"]
    assert [d["version"] for d in every if d["name"] == "study"] == [2, 1]
    # A researcher who cannot see the name cannot take it.
    outsider = client_for(world, "outsider").post(
        "/api/datasets/", {"file": sample_file(), "format": "dkd", "name": "study"}
    )
    assert outsider.status_code == 400 and "cannot see" in outsider.json()["file"][0]


def test_the_command_refuses_a_taken_name_unless_told_to_make_a_new_version(db: None) -> None:
    from django.core.management.base import CommandError

    call_command("import_dataset", str(SAMPLE_DKD), format="dkd", name="cli")
    with pytest.raises(CommandError, match="--new-version to import it as version 2"):
        call_command("import_dataset", str(SAMPLE_DKD), format="dkd", name="cli")
    call_command("import_dataset", str(SAMPLE_DKD), format="dkd", name="cli", new_version=True)
    assert list(Dataset.objects.filter(name="cli").values_list("version", flat=True)) == [2, 1]


def test_upload_on_the_datasets_page_keeps_the_form_on_error_and_redirects_on_success(world: World) -> None:
    client = client_for(world, "researcher")
    page = client.get("/datasets/")
    assert page.status_code == 200 and b'id="upload-form"' in page.content
    refused = client.post("/datasets/", {"file": bad_file(), "format": "dkd", "name": "page-upload"})
    assert refused.status_code == 400
    assert b"broken.json: record contexts[1]" in refused.content
    assert b'value="page-upload"' in refused.content  # what was typed is kept
    assert not Dataset.objects.filter(name="page-upload").exists()
    done = client.post("/datasets/", {"file": sample_file(), "format": "dkd", "name": "page-upload"})
    assert done.status_code == 302 and done["Location"] == "/datasets/page-upload/"
    assert b"Imported page-upload version 1" in client.get(done["Location"]).content


@pytest.mark.django_db(transaction=True)
def test_the_migration_turns_free_text_versions_into_numbers() -> None:
    from django.db import connection
    from django.db.migrations.executor import MigrationExecutor

    executor = MigrationExecutor(connection)
    executor.migrate([("corpus", "0003_roles")])
    old = executor.loader.project_state([("corpus", "0003_roles")]).apps.get_model("corpus", "Dataset")
    old.objects.create(name="legacy", kind="dkd", version="draft")
    old.objects.create(name="numbered", kind="dkd", version="3")
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(executor.loader.graph.leaf_nodes())
    assert dict(Dataset.objects.values_list("name", "version")) == {"legacy": 1, "numbered": 3}
