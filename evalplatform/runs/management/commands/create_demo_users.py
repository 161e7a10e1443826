"""Create the demo logins, one per role, idempotently: running it again resets their passwords and roles
and changes nothing else. The researcher joins the project "demo", which holds the dataset dkd-sample
(when it has been imported). The passwords are for a local demo only and are printed on purpose."""

from typing import Any

from django.contrib.auth.models import User
from django.core.management.base import BaseCommand
from django.db import transaction

from evalplatform.corpus.models import Dataset, Project
from evalplatform.roles import ADMIN, ANNOTATOR, RESEARCHER, user_add_role

DEMO_PROJECT = "demo"
DEMO_DATASETS = ("dkd-sample",)
# Demo passwords, documented in docs/api.md and printed by this command: never use them outside a demo.
DEMO_USERS: tuple[tuple[str, str, str], ...] = (
    ("demo-admin", ADMIN, "demo-admin-pass"),
    ("demo-researcher", RESEARCHER, "demo-researcher-pass"),
    ("demo-annotator", ANNOTATOR, "demo-annotator-pass"),
    ("demo-annotator2", ANNOTATOR, "demo-annotator2-pass"),
    ("demo-annotator3", ANNOTATOR, "demo-annotator3-pass"),
)


class Command(BaseCommand):
    help = "Create (or reset) demo-admin, demo-researcher and three demo annotators, and print their logins."

    @transaction.atomic
    def handle(self, *args: Any, **options: Any) -> None:
        project, _ = Project.objects.get_or_create(
            name=DEMO_PROJECT, defaults={"description": "The bundled demo: the DKD sample and its runs."}
        )
        linked = Dataset.objects.filter(name__in=DEMO_DATASETS).update(project=project)
        for username, role, password in DEMO_USERS:
            user, _ = User.objects.get_or_create(username=username)
            user.set_password(password)
            user.is_staff = user.is_superuser = role == ADMIN
            user.save()
            user.groups.clear()
            user_add_role(user=user, role=role)
            if role == RESEARCHER:
                project.members.add(user)
        self.stdout.write(f"Project '{DEMO_PROJECT}' holds {linked} of the demo datasets ({', '.join(DEMO_DATASETS)}).")
        self.stdout.write("Demo logins (local demo only):")
        for username, role, password in DEMO_USERS:
            self.stdout.write(f"  {role:<10} {username:<16} password: {password}")
