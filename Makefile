# tinker-nomics front door. `make help` lists the targets.
SHELL := /bin/bash
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
VENDOR_STAMP := book/_vendor/VERSIONS

.PHONY: help install vendor browser-deps test test-fast test-live book validate clean

help:  ## list the targets
	@grep -E '^[a-zA-Z_-]+:.*## ' $(MAKEFILE_LIST) | sed -E 's/:.*## /\t/' | expand -t 16

install: $(STAMP) $(VENDOR_STAMP)  ## create .venv, install the pinned requirements and the package, vendor the book's JS

$(STAMP): requirements.txt pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q -r requirements.txt
	touch $(STAMP)

vendor: $(VENDOR_STAMP)  ## fetch the widget manager, RequireJS and MathJax from npm into book/_vendor (for offline pages)

# The pinned npm versions live in the script. It is a no-op when book/_vendor/VERSIONS (pins plus
# hashes of both files) already matches, and tools/build_book.sh runs it again before every build.
$(VENDOR_STAMP): tools/vendor_js.sh tools/widgets-setup.js
	tools/vendor_js.sh

browser-deps:  ## install headless Chromium and fonts for the browser test (apt-get; needs root)
	@if [ -x /usr/bin/chromium ]; then \
	  echo "browser-deps: /usr/bin/chromium is installed"; \
	elif [ "$$(id -u)" != 0 ]; then \
	  echo "browser-deps: /usr/bin/chromium is missing; as root run: apt-get install -y chromium chromium-driver fonts-dejavu-core" >&2; \
	  exit 1; \
	else \
	  apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q chromium chromium-driver fonts-dejavu-core; \
	fi

test-deep: install  ## the fast tests with the thorough hypothesis profile and a long fuzz run (minutes)
	HYPOTHESIS_PROFILE=thorough FUZZ_EXAMPLES=2000 $(PY) -m pytest -q -m "not slow"

test-fast: install  ## unit, property and CLI tests only (no notebooks, no browser)
	$(PY) -m pytest -q -m "not slow"

test: install browser-deps  ## every test: unit, property, CLI, notebooks, and the browser test of the built book
	$(PY) -m pytest -q -m "not live"

test-live: install browser-deps  ## every chapter run live in JupyterLab (as on Binder), driven by headless Chromium
	$(PY) -m pytest -q -m live

book: install  ## execute the chapters and build the static site into _build/html
	JUPYTER_BOOK=$(VENV)/bin/jupyter-book tools/build_book.sh

# RUN is a tinker-cookbook log folder, a metrics.jsonl or a W&B export; the report lands in OUT (default
# reports/<name of RUN>), never inside RUN. FORCE=1 overwrites an existing report; the run's folder is never written.
validate: $(STAMP)  ## bill a finished run from its logs and render its report: make validate RUN=<path> [MODEL=...] [PRICES=...] [PRICE_AS=...] [OUT=reports/<name>] [FORCE=1]
	@if [ -z "$(RUN)" ]; then echo "make validate: set RUN=<log folder, metrics.jsonl or W&B export>" >&2; exit 2; fi
	$(PY) -m tinker_nomics validate "$(RUN)" $(if $(MODEL),--model "$(MODEL)") $(if $(PRICES),--prices "$(PRICES)") \
	  $(if $(PRICE_AS),--price-as "$(PRICE_AS)") --report "$(or $(OUT),reports/$(basename $(notdir $(patsubst %/,%,$(RUN)))))" \
	  $(if $(FORCE),--force)

bench: install  ## measure speed and memory on this machine (prints JSON and a table; includes two book builds)
	$(PY) tools/bench.py

clean:  ## remove build output (keeps .venv and book/_vendor)
	rm -rf _build reports .pytest_cache .hypothesis
