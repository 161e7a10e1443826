"""Settings for evalplatform, read from the environment.

Unset, everything falls back to the embedded default: an SQLite file under ``var/`` and a Celery
broker and result store in SQLite files (through SQLAlchemy), so a real worker runs with no server.
With ``DEBUG`` off the app refuses to start on a weak or published secret key or a wildcard host.
"""

from pathlib import Path

import dj_database_url
from django.core.exceptions import ImproperlyConfigured

from evalplatform.env import env_bool, env_int, env_list, env_str
from evalplatform.secret_keys import HOW_TO_GENERATE, secret_key_problem
from evalplatform.trusted_proxies import trusted_networks

BASE_DIR = Path(__file__).resolve().parent.parent
VAR_DIR = Path(env_str("EVALPLATFORM_VAR_DIR", str(BASE_DIR / "var")))
VAR_DIR.mkdir(parents=True, exist_ok=True)

INSECURE_DEFAULT_SECRET_KEY = "insecure-development-key-do-not-use-in-production"  # noqa: S105 (refused below)
SECRET_KEY = env_str("SECRET_KEY", INSECURE_DEFAULT_SECRET_KEY)
DEBUG = env_bool("DEBUG", False)
ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", ["localhost", "127.0.0.1", "[::1]"])
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS", [])

if not DEBUG:
    _secret_key_problem = secret_key_problem(SECRET_KEY)
    if _secret_key_problem:
        raise ImproperlyConfigured(
            f"DEBUG is off and {_secret_key_problem}: set SECRET_KEY in the environment, {HOW_TO_GENERATE} "
            "(or DEBUG=1 for local development)."
        )
    if "*" in ALLOWED_HOSTS:
        raise ImproperlyConfigured("DEBUG is off and ALLOWED_HOSTS contains '*': name the hosts explicitly.")

# The reverse proxies (addresses or networks) whose X-Forwarded-For is believed: throttles count a request
# under the address the outermost trusted proxy saw, and under REMOTE_ADDR when it came from anywhere else.
TRUSTED_PROXIES = trusted_networks(env_list("TRUSTED_PROXIES", []))

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
    "evalplatform.middleware.RefuseNulCharacters",
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
# A connection is kept for the next request or task for up to DATABASE_CONN_MAX_AGE seconds (0: one per request
# or task), checked before it is reused. A new PostgreSQL connection costs the server a process and about 2,000
# catalog rows read; one per task was most of the rows a run read (docs/scale.md).
DATABASES = {
    "default": dj_database_url.parse(
        env_str("DATABASE_URL", DEFAULT_SQLITE_URL),
        conn_max_age=env_int("DATABASE_CONN_MAX_AGE", 60),
        conn_health_checks=True,
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
# A prefix for every queue name (the default queue's too, unless CELERY_TASK_DEFAULT_QUEUE names it outright): two
# deployments on one broker, or a benchmark beside a running platform, each keep to their own queues.
QUEUE_PREFIX = env_str("EVALPLATFORM_QUEUE_PREFIX", "")
CELERY_TASK_DEFAULT_QUEUE = env_str("CELERY_TASK_DEFAULT_QUEUE", QUEUE_PREFIX + "celery")
CELERY_TASK_EAGER_PROPAGATES = True
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
# Celery's Django fix-up closes a worker's database connection before and after every task unless this is set;
# with it, it closes one every 2 x this many tasks. Between tasks, evalplatform.celery applies Django's own rule
# instead (DATABASE_CONN_MAX_AGE, and a connection that saw an error is closed), as between requests.
CELERY_DB_REUSE_MAX = 1000
CELERY_TASK_SOFT_TIME_LIMIT = env_int("CELERY_TASK_SOFT_TIME_LIMIT", 600)
CELERY_TASK_TIME_LIMIT = env_int("CELERY_TASK_TIME_LIMIT", 660)
CELERY_TASK_SERIALIZER = "json"
CELERY_RESULT_SERIALIZER = "json"
CELERY_ACCEPT_CONTENT = ["json"]
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
# Queues by kind of work (EVALPLATFORM_QUEUES_BY_KIND=1, as docker-compose.yml runs it): "llm" for the calls to
# models (answers, judges: I/O-bound, run them on a thread pool; no encoder is loaded there), "embeddings" for ASS
# batches and "graphs" for S3KG (CPU-bound, torch and spaCy loaded once per process); the rest (run_execute, the
# feeder, the watchdog, imports) stays on the default queue. Unset, every task goes to the default queue, so one
# worker runs everything (make serve, the tests).
QUEUE_LLM, QUEUE_EMBEDDINGS, QUEUE_GRAPHS = (QUEUE_PREFIX + name for name in ("llm", "embeddings", "graphs"))
CELERY_TASK_ROUTES = (
    {
        "cdke.generation_answer": {"queue": QUEUE_LLM},
        "cdke.generation_score": {"queue": QUEUE_LLM},
        "cdke.retest_score": {"queue": QUEUE_LLM},
        "cdke.similarity_batch": {"queue": QUEUE_EMBEDDINGS},
        "scoring.generation_graph": {"queue": QUEUE_GRAPHS},
    }
    if env_bool("EVALPLATFORM_QUEUES_BY_KIND", False)
    else {}
)
# Redis and SQS hand an unacknowledged message (its worker was killed) to another worker after this many seconds;
# the run watchdog re-sends a stale run's work sooner (RUN_STALE_AFTER_S), idempotently. Only those transports take
# the option: the embedded SQLAlchemy broker hands it to SQLAlchemy's create_engine, and its worker cannot start.
CELERY_BROKER_TRANSPORT_OPTIONS = (
    {"visibility_timeout": env_int("CELERY_VISIBILITY_TIMEOUT_S", 3600)}
    if CELERY_BROKER_URL.startswith(("redis://", "rediss://", "sqs://"))
    else {}
)
# The watchdog (runs.watchdog) looks at every running run once a minute (run a beat: celery -A evalplatform beat).
CELERY_BEAT_SCHEDULE = {
    "run-watchdog": {"task": "runs.watchdog", "schedule": float(env_int("RUN_WATCHDOG_EVERY_S", 60))},
}
# A running run whose last unit finished longer ago than this is stale: its unfinished work is sent again.
RUN_STALE_AFTER_S = env_int("RUN_STALE_AFTER_S", 600)
# After this many re-sends without progress the run fails, saying so (run_resume continues it).
RUN_WATCHDOG_KICKS = env_int("RUN_WATCHDOG_KICKS", 3)
# A run of at most this many cells is planned (its Generation rows written) in the launching request; a larger one
# by the first worker task, so that launching 100,000 cells answers at once.
RUN_PLAN_INLINE_CELLS = env_int("RUN_PLAN_INLINE_CELLS", 5000)
# Answers are sent to the workers in chunks as the queue drains: at most this many in flight per run...
RUN_QUEUE_HIGH_WATER = env_int("RUN_QUEUE_HIGH_WATER", 2000)
# ...sent this many at a time, looking again this often (seconds).
RUN_FEED_CHUNK = env_int("RUN_FEED_CHUNK", 500)
RUN_FEED_EVERY_S = env_int("RUN_FEED_EVERY_S", 2)

REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "rest_framework.authentication.SessionAuthentication",
        "rest_framework.authentication.TokenAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
    # JSON bodies through evalplatform.strict_json: too deep, NaN, infinities and NUL characters are a 400.
    "DEFAULT_PARSER_CLASSES": [
        "evalplatform.api_parsers.StrictJSONParser",
        "rest_framework.parsers.FormParser",
        "rest_framework.parsers.MultiPartParser",
    ],
    "DEFAULT_PAGINATION_CLASS": "rest_framework.pagination.PageNumberPagination",
    "PAGE_SIZE": 50,
    "DEFAULT_FILTER_BACKENDS": ["django_filters.rest_framework.DjangoFilterBackend"],
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    # Scoped throttles (views set throttle_scope): login, run launch and export, keyed on the user or on the
    # client's address as TRUSTED_PROXIES allow reading it; login_username counts failed logins per username.
    "DEFAULT_THROTTLE_CLASSES": ["evalplatform.throttling.ScopedClientThrottle"],
    "DEFAULT_THROTTLE_RATES": {
        "login": env_str("THROTTLE_LOGIN", "10/minute"),
        "login_username": env_str("THROTTLE_LOGIN_USERNAME", "20/hour"),
        "run_launch": env_str("THROTTLE_RUN_LAUNCH", "30/hour"),
        "export": env_str("THROTTLE_EXPORT", "120/hour"),
    },
}

# The cache backs throttling; one shared cache (Redis) is needed when several web processes serve.
CACHE_URL = env_str("CACHE_URL", "")
# The Redis that holds each endpoint's concurrency and rate limits for every worker together: LIMITS_REDIS_URL, or
# the cache's or the broker's Redis; none (SQLite broker, no cache): each process limits itself.
LIMITS_REDIS_URL = env_str(
    "LIMITS_REDIS_URL",
    next(
        (url for url in (CACHE_URL, env_str("CELERY_BROKER_URL", "")) if url.startswith(("redis://", "rediss://"))),
        "",
    ),
)
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

# Variables an endpoint's api_key_env may name besides *_API_KEY, *_TOKEN and AWS_* (evalplatform.llm.redaction);
# their values are also scrubbed from every stored output and error.
API_KEY_ENV_ALLOWLIST = env_list("EVALPLATFORM_API_KEY_ENV_ALLOWLIST", [])

# Imports: the largest file accepted, in bytes (documented in the README).
MAX_IMPORT_BYTES = env_int("EVALPLATFORM_MAX_IMPORT_BYTES", 200 * 1024 * 1024)
# The most cells (question x model x temperature x condition x sample) one run may plan; a larger one is refused
# with a message saying how to narrow it or raise the cap.
MAX_RUN_CELLS = env_int("EVALPLATFORM_MAX_RUN_CELLS", 200_000)

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {"plain": {"format": "%(asctime)s %(levelname)s %(name)s: %(message)s"}},
    "handlers": {"console": {"class": "logging.StreamHandler", "formatter": "plain"}},
    "root": {"handlers": ["console"], "level": env_str("LOG_LEVEL", "INFO")},
    "loggers": {"httpx": {"level": "WARNING"}, "urllib3": {"level": "WARNING"}},
}
