"""The benchmark page lays our alpha sweep beside the paper's Table 4, on one labelled axis."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User
from django.test import Client

from evalplatform.corpus.models import Dataset, Project
from evalplatform.roles import user_add_role
from evalplatform.runs.models import Run
from scoring.models import BenchmarkResult

pytestmark = pytest.mark.django_db


def _researcher_client() -> Client:
    user = User.objects.create_user(username="rita", password="a-long-test-password-1")
    user_add_role(user=user, role="researcher")
    project = Project.objects.create(name="p")
    project.members.add(user)
    pairs = Dataset.objects.create(name="mrpc-mini", kind=Dataset.Kind.PAIRS, project=project)
    run = Run.objects.create(kind=Run.Kind.SIMILARITY_BENCHMARK, dataset=pairs, status=Run.Status.DONE, spec={})
    for method, f1 in [
        ("s3kg_directed@alpha_wl=0.3", 0.611),  # alpha weights the kernel
        ("s3kg@alpha=0.3", 0.622),  # a legacy name: alpha on the semantic score, so the kernel's weight is 0.7
        ("bleu", 0.5),
    ]:
        BenchmarkResult.objects.create(run=run, method=method, n=1, f1=f1, auroc=f1 + 0.1)
    client = Client()
    client.force_login(user)
    return client


def test_page_tables_our_sweep_beside_the_papers() -> None:
    page = _researcher_client().get("/benchmarks/").content.decode()
    assert "weight of the structural (WL) score" in page
    assert 'id="paper-table4"' in page and "0.692" in page  # MRPC's best F1, alpha 0.3
    table = page[page.index('id="alpha-sweep-1"') :]
    table = table[: table.index("</table>")]
    assert "s3kg_directed max F1" in table and "s3kg (Eq. 2 alpha, flipped) max F1" in table
    row_03 = table[table.index("<td>0.3</td>") :].split("</tr>")[0]
    row_07 = table[table.index("<td>0.7</td>") :].split("</tr>")[0]
    assert "0.611" in row_03 and "0.692" in row_03  # ours beside the paper's MRPC F1 at alpha 0.3
    assert "0.622" in row_07 and "0.622" not in row_03  # the legacy result lands at 1 - 0.3


def test_sweep_plot_draws_the_papers_curves_on_the_labelled_axis() -> None:
    svg = _researcher_client().get("/benchmarks/alpha-sweep-f1.svg").content.decode()
    assert "paper Table 4, PAWS-Wiki" in svg and "s3kg_directed on mrpc-mini" in svg
    assert "s3kg on mrpc-mini (Eq. 2 alpha, flipped)" in svg
    assert "weight of the structural (WL) score" in svg
