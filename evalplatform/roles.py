"""The three roles, as Django groups, and the checks every selector and permission builds on.

- admin: everything (a superuser, or a member of the ``admin`` group);
- researcher: datasets and runs of the projects they are a member of, and what they created;
- annotator: only their own assignments.
"""

from django.contrib.auth.models import AbstractBaseUser, AnonymousUser, Group, User

ADMIN = "admin"
RESEARCHER = "researcher"
ANNOTATOR = "annotator"
ROLES = (ADMIN, RESEARCHER, ANNOTATOR)

AnyUser = AbstractBaseUser | AnonymousUser | User


def _groups(user: AnyUser) -> set[str]:
    if not user.is_authenticated:
        return set()
    cached = getattr(user, "_role_names", None)
    if cached is None:
        cached = set(Group.objects.filter(user=user.pk).values_list("name", flat=True))
        setattr(user, "_role_names", cached)  # noqa: B010 (a per-request cache on the user object)
    return cached


def is_admin(user: AnyUser) -> bool:
    return bool(user.is_authenticated and (getattr(user, "is_superuser", False) or ADMIN in _groups(user)))


def is_researcher(user: AnyUser) -> bool:
    """Admins can do whatever researchers can."""
    return is_admin(user) or RESEARCHER in _groups(user)


def is_annotator(user: AnyUser) -> bool:
    return bool(user.is_authenticated and ANNOTATOR in _groups(user))


def role_of(user: AnyUser) -> str | None:
    if is_admin(user):
        return ADMIN
    if RESEARCHER in _groups(user):
        return RESEARCHER
    if is_annotator(user):
        return ANNOTATOR
    return None


def user_add_role(*, user: User, role: str) -> None:
    """Give a user one of the roles (creating its group if needed)."""
    if role not in ROLES:
        raise ValueError(f"unknown role '{role}' (known: {', '.join(ROLES)})")
    group, _ = Group.objects.get_or_create(name=role)
    user.groups.add(group)
    if hasattr(user, "_role_names"):
        del user._role_names


def signed_in_user(user: AnyUser | None) -> User | None:
    """The user to record as the author of a change: a signed-in user, or None (anonymous, a command, a task)."""
    return user if isinstance(user, User) and user.is_authenticated else None
