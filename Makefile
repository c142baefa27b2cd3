# Gem Arena — the two set-up commands are `make run` and `make test`.
# Both create what they need: the virtual environment, the database, the bot image.

PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed
export GEMARENA_VAR_DIR ?= $(CURDIR)/var

.PHONY: run test venv image migrate lint format bench clean help

help:
	@echo "make run     start the platform (web, worker, housekeeper, beat) on http://127.0.0.1:8000/"
	@echo "make test    run the whole test suite"
	@echo "make bench   print the benchmark figures"
	@echo "make lint    ruff check + format check"
	@echo "make format  let ruff fix and format the code"
	@echo "make image   build the bot image (when a Docker engine answers)"
	@echo "make clean   remove .venv, and the filesystem broker and beat schedule in $$GEMARENA_VAR_DIR"

$(STAMP): pyproject.toml
	@$(PYTHON) -c 'import sys; sys.exit(sys.version_info < (3, 11) and "Python 3.11+ is needed" or 0)'
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

venv: $(STAMP)

# The bot image is built only when a Docker engine answers; without one the
# platform falls back to the process sandbox and the Docker tests skip. It
# carries the bot library (SDK + engines, content-addressed), so it is
# re-tagged whenever the engines change; unchanged inputs cost a second.
image: $(STAMP)
	@if docker info >/dev/null 2>&1; then \
		$(PY) -m sandbox.image ensure --force --extra-lib "$$($(PY) -m arena.sdk_lib)"; \
	else \
		echo "Docker engine not reachable: skipping the bot image (process sandbox will be used)"; \
	fi

migrate: $(STAMP)
	@mkdir -p $(GEMARENA_VAR_DIR)
	$(PY) manage.py migrate --noinput
	$(PY) manage.py ensure_admin

run: image migrate
	$(PY) manage.py seed_demo
	@echo ""
	@echo "  Gem Arena is starting at http://127.0.0.1:$${WEB_PORT:-8000}/  (status: /status/, admin: /admin/)"
	@echo ""
	$(VENV)/bin/honcho -f Procfile start

# pytest exits 5 when it collected nothing: for us that is a broken suite.
test: image
	@$(PY) -m pytest $(PYTEST_ARGS); rc=$$?; \
	if [ $$rc -eq 5 ]; then echo "pytest collected no tests: the suite is broken" >&2; exit 1; fi; \
	exit $$rc

bench: $(STAMP)
	$(VENV)/bin/arena bench splendor-duel --seconds 10
	$(VENV)/bin/arena bench edel-stein-reich --players 4 --seconds 10
	$(PY) -m sandbox.bench

lint: $(STAMP)
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .

format: $(STAMP)
	$(VENV)/bin/ruff check --fix .
	$(VENV)/bin/ruff format .

clean:
	rm -rf $(VENV) $(GEMARENA_VAR_DIR)/broker $(GEMARENA_VAR_DIR)/celerybeat-schedule* .pytest_cache
