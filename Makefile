# The two commands: `make demo` and `make test`. Both create .venv and install everything on a fresh clone.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed-$(shell sha256sum requirements.txt | cut -c1-12)
export HF_HUB_OFFLINE := 1
export TRANSFORMERS_OFFLINE := 1
DEV_ENV := DEBUG=1

.PHONY: install demo test lint typecheck pytest migrate serve worker llm-server browsers clean

install: $(STAMP)

$(STAMP): requirements.txt
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --upgrade pip
	$(PY) -m pip install -r requirements.txt
	rm -f $(VENV)/.installed-*
	touch $@

# Debian's Chromium and its driver, for the browser tests (root on this kind of machine).
browsers:
	@command -v chromium >/dev/null && command -v chromedriver >/dev/null || \
		(apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q chromium chromium-driver)

migrate: install
	$(DEV_ENV) $(PY) manage.py migrate --noinput

demo: install migrate
	$(DEV_ENV) $(PY) manage.py import_dataset data/samples/dkd_sample.json --format dkd --name dkd-sample --replace
	$(DEV_ENV) $(PY) manage.py list_datasets

lint: install
	$(DEV_ENV) $(PY) manage.py makemigrations --check --dry-run
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .

typecheck: install
	$(DEV_ENV) $(VENV)/bin/mypy .

pytest: install browsers
	$(PY) -m pytest $(PYTEST_ARGS)

test: lint typecheck pytest

serve: migrate
	$(DEV_ENV) $(VENV)/bin/celery -A evalplatform worker --loglevel=INFO --concurrency=2 & \
	$(DEV_ENV) $(PY) manage.py runserver 127.0.0.1:8000

worker: install
	$(DEV_ENV) $(VENV)/bin/celery -A evalplatform worker --loglevel=INFO

llm-server: install
	$(DEV_ENV) $(PY) -m evalplatform.llm.local_server

clean:
	rm -rf var/*.sqlite3 var/staticfiles
