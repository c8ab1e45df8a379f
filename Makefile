# The two commands: `make book` and `make test`. Everything else is a helper.
PYTHON ?= python3.11
VENV   := .venv
BIN    := $(VENV)/bin
UV_VERSION := 0.13.9
STAMP  := $(VENV)/.installed

.PHONY: book test test-fast install lock system-deps clean clean-all bench

book: $(STAMP)
	$(BIN)/mqperf build

# Unit, data and CLI tests, nbval over every chapter (strict: every output compared), a
# warnings-as-errors book build and the headless-browser check of every page. On every core
# (pytest-xdist); --dist loadscope keeps each notebook's cells, and each module, on one worker.
test: $(STAMP) system-deps
	$(BIN)/python -m pytest --nbval -n auto --dist loadscope --no-loadscope-reorder tests chapters

# The edit-test loop: every test that executes no notebook and opens no browser (no nbval, no
# build, no `mqperf run` subprocess), on every core. tests/conftest.py refuses a kernel here.
test-fast: $(STAMP)
	$(BIN)/python -m pytest -n auto -m "not slow and not browser" -p no:cacheprovider -p no:nbval -q tests

# Debian packages the tests need (chromium); installs them when missing and run as root.
system-deps:
	./.ci/install-system-deps

install: $(STAMP)

# Re-installs only when the lock or the project metadata changed.
$(STAMP): requirements.lock pyproject.toml
	@command -v $(PYTHON) >/dev/null || { echo "error: $(PYTHON) not found; the book needs Python 3.11 (set PYTHON=...)"; exit 2; }
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet uv==$(UV_VERSION)
	# Bytecode compiled at install only where PYTHONDONTWRITEBYTECODE is set (as on some CI images):
	# there every kernel would otherwise recompile pandas, scipy and statsmodels from source (6.7 s,
	# not 2.3 s), and every process mqperf's own modules (src/, editable: 0.1 to 0.25 s each).
	# Elsewhere Python writes the bytecode of what is imported as it first imports it, a small part
	# of the 10,000 files an install-time compile takes 17 s over.
	$(BIN)/uv pip sync --quiet $(if $(PYTHONDONTWRITEBYTECODE),--compile-bytecode) --python $(BIN)/python requirements.lock
	$(BIN)/uv pip install --quiet --python $(BIN)/python --no-deps -e .
	$(if $(PYTHONDONTWRITEBYTECODE),$(BIN)/python -m compileall -q -j 0 src)
	touch $(STAMP)

# Regenerate the lock after changing dependencies in pyproject.toml.
lock:
	$(BIN)/uv pip compile --quiet pyproject.toml --extra test --python-version 3.11 \
	    --custom-compile-command "make lock" -o requirements.lock

bench: $(STAMP)
	$(BIN)/python benchmarks/bench_speed.py

clean:
	rm -rf _build .cache

clean-all: clean
	rm -rf $(VENV)
