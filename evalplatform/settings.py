"""Settings for evalplatform, read from the environment.

Unset, everything falls back to the embedded default: an SQLite file under ``var/`` and a Celery
broker and result store in SQLite files (through SQLAlchemy), so a real worker runs with no server.
With ``DEBUG`` off the app refuses to start on the default secret key or a wildcard host.
"""

from pathlib import Path

import dj_database_url
from django.core.exceptions import ImproperlyConfigured

from evalplatform.env import env_bool, env_int, env_list, env_str

BASE_DIR = Path(__file__).resolve().parent.parent
VAR_DIR = Path(env_str("EVALPLATFORM_VAR_DIR", str(BASE_DIR / "var")))
VAR_DIR.mkdir(parents=True, exist_ok=True)

INSECURE_DEFAULT_SECRET_KEY = "insecure-development-key-do-not-use-in-production"  # noqa: S105 (refused below)
SECRET_KEY = env_str("SECRET_KEY", INSECURE_DEFAULT_SECRET_KEY)
DEBUG = env_bool("DEBUG", False)
ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", ["localhost", "127.0.0.1", "[::1]"])
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS", [])

if not DEBUG:
    if SECRET_KEY == INSECURE_DEFAULT_SECRET_KEY or len(SECRET_KEY) < 32:
        raise ImproperlyConfigured(
            "DEBUG is off and SECRET_KEY is the development default or shorter than 32 characters: "
            "set SECRET_KEY in the environment (or DEBUG=1 for local development)."
        )
    if "*" in ALLOWED_HOSTS:
        raise ImproperlyConfigured("DEBUG is off and ALLOWED_HOSTS contains '*': name the hosts explicitly.")

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "rest_framework",
    "rest_framework.authtoken",
    "django_filters",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "evalplatform.audit",
    "evalplatform.corpus",
    "evalplatform.runs",
    "annotation",
    "scoring",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
]

ROOT_URLCONF = "evalplatform.urls"
WSGI_APPLICATION = "evalplatform.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "evalplatform.navigation.roles",
            ],
            "builtins": ["evalplatform.formatting"],
        },
    },
]

DEFAULT_SQLITE_URL = f"sqlite:///{VAR_DIR / 'evalplatform.sqlite3'}"
DATABASES = {
    "default": dj_database_url.parse(
        env_str("DATABASE_URL", DEFAULT_SQLITE_URL), conn_max_age=env_int("DATABASE_CONN_MAX_AGE", 0)
    )
}
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # A file-backed test database, so that a real worker process can see what a test wrote.
    DATABASES["default"]["TEST"] = {"NAME": str(VAR_DIR / "test-evalplatform.sqlite3")}
    DATABASES["default"].setdefault("OPTIONS", {})["timeout"] = 30

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
]

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATICFILES_DIRS = [BASE_DIR / "static"]
STATIC_ROOT = VAR_DIR / "staticfiles"
LOGIN_URL = "/accounts/login/"
LOGIN_REDIRECT_URL = "/"
LOGOUT_REDIRECT_URL = "/accounts/login/"

SESSION_COOKIE_SECURE = not DEBUG and env_bool("SECURE_COOKIES", False)
CSRF_COOKIE_SECURE = SESSION_COOKIE_SECURE

# Celery: the embedded default is a SQLAlchemy broker and result store in SQLite files.
CELERY_BROKER_URL = env_str("CELERY_BROKER_URL", f"sqla+sqlite:///{VAR_DIR / 'celery-broker.sqlite3'}")
CELERY_RESULT_BACKEND = env_str(
    "CELERY_RESULT_BACKEND",
    CELERY_BROKER_URL
    if CELERY_BROKER_URL.startswith(("redis://", "rediss://"))
    else f"db+sqlite:///{VAR_DIR / 'celery-results.sqlite3'}",
)
CELERY_TASK_ALWAYS_EAGER = env_bool("CELERY_TASK_ALWAYS_EAGER", False)
CELERY_TASK_DEFAULT_QUEUE = env_str("CELERY_TASK_DEFAULT_QUEUE", "celery")
CELERY_TASK_EAGER_PROPAGATES = True
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_TASK_SOFT_TIME_LIMIT = env_int("CELERY_TASK_SOFT_TIME_LIMIT", 600)
CELERY_TASK_TIME_LIMIT = env_int("CELERY_TASK_TIME_LIMIT", 660)
CELERY_TASK_SERIALIZER = "json"
CELERY_RESULT_SERIALIZER = "json"
CELERY_ACCEPT_CONTENT = ["json"]
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True

REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "rest_framework.authentication.SessionAuthentication",
        "rest_framework.authentication.TokenAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
    "DEFAULT_PAGINATION_CLASS": "rest_framework.pagination.PageNumberPagination",
    "PAGE_SIZE": 50,
    "DEFAULT_FILTER_BACKENDS": ["django_filters.rest_framework.DjangoFilterBackend"],
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    # Scoped throttles (views set throttle_scope): login, run launch and export.
    "DEFAULT_THROTTLE_CLASSES": ["rest_framework.throttling.ScopedRateThrottle"],
    "DEFAULT_THROTTLE_RATES": {
        "login": env_str("THROTTLE_LOGIN", "10/minute"),
        "run_launch": env_str("THROTTLE_RUN_LAUNCH", "30/hour"),
        "export": env_str("THROTTLE_EXPORT", "120/hour"),
    },
}

# The cache backs throttling; one shared cache (Redis) is needed when several web processes serve.
CACHE_URL = env_str("CACHE_URL", "")
CACHES = {
    "default": (
        {"BACKEND": "django.core.cache.backends.redis.RedisCache", "LOCATION": CACHE_URL}
        if CACHE_URL
        else {"BACKEND": "django.core.cache.backends.locmem.LocMemCache", "LOCATION": "evalplatform"}
    )
}
SPECTACULAR_SETTINGS = {
    "TITLE": "evalplatform API",
    "DESCRIPTION": "Datasets, runs, generations, scores and annotation of evalplatform.",
    "VERSION": "0.1.0",
    "SERVE_INCLUDE_SCHEMA": False,
    # Swagger UI and Redoc from the drf-spectacular-sidecar package: served by this server, nothing from a CDN.
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    # Two models have a "kind" and a "status" each: name their enums after the model.
    "ENUM_NAME_OVERRIDES": {
        "DatasetKindEnum": "evalplatform.corpus.models.Dataset.Kind",
        "RunStatusEnum": "evalplatform.runs.models.Run.Status",
    },
}

# Imports: the largest file accepted, in bytes (documented in the README).
MAX_IMPORT_BYTES = env_int("EVALPLATFORM_MAX_IMPORT_BYTES", 200 * 1024 * 1024)

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {"plain": {"format": "%(asctime)s %(levelname)s %(name)s: %(message)s"}},
    "handlers": {"console": {"class": "logging.StreamHandler", "formatter": "plain"}},
    "root": {"handlers": ["console"], "level": env_str("LOG_LEVEL", "INFO")},
    "loggers": {"httpx": {"level": "WARNING"}, "urllib3": {"level": "WARNING"}},
}
