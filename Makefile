# tinker-nomics front door. `make help` lists the targets.
SHELL := /bin/bash
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
VENDOR_STAMP := book/_vendor/VERSIONS

.PHONY: help install vendor browser-deps test test-fast test-slow test-deep test-resolve test-live book validate calibrate offers tinker-wallclock bench clean

# Which Python: the first make goal that needs .venv checks $(PYTHON) before .venv exists, and stops in one line
# naming the supported Pythons found on this machine (tools/check_python.sh; the supported minor versions are
# pyproject.toml's classifiers). An existing, installed .venv is used as it is.
VENV_GOALS := install test test-fast test-slow test-deep test-resolve test-live book validate calibrate offers tinker-wallclock bench
ifneq ($(filter $(VENV_GOALS),$(MAKECMDGOALS)),)
ifeq ($(wildcard $(STAMP)),)
PYTHON_PROBLEM := $(shell tools/check_python.sh "$(PYTHON)" $(filter $(VENV_GOALS),$(MAKECMDGOALS)))
ifneq ($(PYTHON_PROBLEM),)
$(error $(PYTHON_PROBLEM))
endif
endif
endif

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

# tools/find_browser.py: CHROMIUM=/path, else a Chromium or Chrome on PATH or at the usual paths of Debian, Ubuntu,
# Fedora and macOS, else Playwright's own download. When none is found it prints the one install command for this
# system; as root on Debian it runs it (apt-get). Root is needed only to install, never for the tests.
browser-deps:  ## find the browser the browser tests drive (CHROMIUM=/path to choose one); install Chromium as root on Debian
	@$(PYTHON) tools/find_browser.py --install-as-root

test-deep: install  ## the fast tests with the thorough hypothesis profile and a long fuzz run (minutes)
	HYPOTHESIS_PROFILE=thorough FUZZ_EXAMPLES=2000 $(PY) -m pytest -q -m "not slow and not network and not live"

# `make test` keeps to the fast tests so that it stays under 8 minutes on a 2-core machine; the tests marked `slow`
# (notebooks, the wheel, rendered reports, the browser check of the built book) are `make test-slow`, which .ci/run
# runs as its own phase after `make book` and `make test`.
test: install  ## the offline tests that run in minutes: unit, property, CLI, registries, readers, the model and its fit
	$(PY) -m pytest -q -m "not slow and not network and not live"

test-fast: test  ## the same as make test (the name older notes use)

test-slow: install browser-deps  ## the slow offline tests: notebooks, the wheel, rendered reports, and the browser check of the built book (after make book)
	$(PY) -m pytest -q -m "slow and not network and not live"

test-live: install browser-deps  ## every chapter run live in JupyterLab (as on Binder), driven by headless Chromium
	$(PY) -m pytest -q -m live

# Needs the package index (pip's resolver), so it is not part of the offline `make test`; .ci/run runs it as its
# own phase. REQUIRE_NETWORK=1 turns "index unreachable" into a failure instead of a skip.
test-resolve: install  ## resolve every requirements file for every supported Python against the package index
	REQUIRE_NETWORK=1 $(PY) -m pytest -q -m network tests/test_resolve.py

book: install  ## execute the chapters and build the static site into _build/html
	JUPYTER_BOOK_PYTHON=$(VENV)/bin/python tools/build_book.sh

# RUN is any log `tinker-nomics validate` reads: a tinker-cookbook log folder or metrics.jsonl, a verl console log or
# file-logger .jsonl, a TRL trainer_state.json or its folder, or a W&B export of any of them or of a NeMo RL run (the
# framework is detected). GPU and NUM_GPUS name the GPUs a self-hosted run ran on (or those to price a Tinker run on); USAGE adds
# Tinker's usage export to a Tinker run. The report lands in OUT (default reports/<name of RUN>), never inside RUN.
# FORCE=1 overwrites an existing report; the run's folder is never written.
validate: $(STAMP)  ## check a finished run from its logs and render its report: make validate RUN=<path> [MODEL=...] [PRICES=...] [PRICE_AS=...] [GPU=...] [NUM_GPUS=...] [RAN_ON=tinker|self-hosted] [USAGE=<export>] [OUT=reports/<name>] [FORCE=1]
	@if [ -z "$(RUN)" ]; then echo "make validate: set RUN=<log folder, log file or W&B export>" >&2; exit 2; fi
	$(PY) -m tinker_nomics validate "$(RUN)" $(if $(MODEL),--model "$(MODEL)") $(if $(PRICES),--prices "$(PRICES)") \
	  $(if $(PRICE_AS),--price-as "$(PRICE_AS)") $(if $(GPU),--gpu "$(GPU)") $(if $(NUM_GPUS),--num-gpus "$(NUM_GPUS)") \
	  $(if $(RAN_ON),--ran-on "$(RAN_ON)") $(if $(USAGE),--usage "$(USAGE)") \
	  --report "$(or $(OUT),reports/$(basename $(notdir $(patsubst %/,%,$(RUN)))))" $(if $(FORCE),--force)

calibrate: $(STAMP)  ## fit the phase model to data/measurements/ and write data/calibration/ (parameters, errors by regime)
	$(PY) tools/import_verl_phases.py
	$(PY) tools/build_measurement_cases.py
	$(PY) tools/calibrate.py

# CATALOG is a folder laid out like skypilot-org/skypilot-catalog's catalogs/ (any vms.csv below it) or one vms.csv;
# default: the snapshot read on 2026-12-02, in place (../shared/realdata/gpu_offers/catalog; tools/realdata.py). COMMIT and RECORDED date a newer checkout.
offers: $(STAMP)  ## import the SkyPilot catalog's GPU offers into data/hardware/gpu_offers.csv: make offers [CATALOG=path] [COMMIT=sha RECORDED=YYYY-MM-DD]
	$(PY) tools/import_gpu_offers.py $(if $(CATALOG),"$(CATALOG)") $(if $(COMMIT),--commit "$(COMMIT)") $(if $(RECORDED),--recorded "$(RECORDED)")

tinker-wallclock: $(STAMP)  ## fit Tinker's step time to the logged Tinker runs; writes data/services/tinker_step_times.csv and tinker_wallclock.csv
	$(PY) tools/fit_tinker_wallclock.py

bench: install  ## measure speed and memory on this machine (prints JSON and a table; includes two book builds)
	$(PY) tools/bench.py

clean:  ## remove build output (keeps .venv and book/_vendor)
	rm -rf _build reports .pytest_cache .hypothesis
