VENV := .venv
PY := $(VENV)/bin/python
JOBS ?= $(shell nproc 2>/dev/null || echo 2)

.PHONY: setup render test lint format docs bench clean

setup:
	@bash scripts/setup.sh

# A lesson to publish renders at 720p30; quick looks use `render.py preview` or -q l.
QUALITY ?= m

render: setup
	$(PY) render.py render --all --lesson --quality $(QUALITY) --jobs $(JOBS)

# One test process per core (pytest-xdist); `pytest tests/test_x.py` runs serially.
test: lint
	$(PY) -m pytest -q -n $(JOBS)

lint: setup
	$(PY) -m ruff check .
	$(PY) -m ruff format --check .

format: setup
	$(PY) -m ruff format .
	$(PY) -m ruff check --fix .

# docs/reference.md, from the command line's options and the lesson's knobs
docs: setup
	$(PY) scripts/reference.py

bench: setup
	$(PY) bench/bench_pe_math.py
	$(PY) bench/bench_render.py
	$(PY) bench/bench_beats.py
	$(PY) bench/bench_voice.py
	$(PY) bench/bench_farm.py
	$(PY) bench/still_runs.py

clean:
	rm -rf build *.egg-info .pytest_cache .ruff_cache .hypothesis
	find . -name __pycache__ -type d -prune -not -path './.venv/*' -exec rm -rf {} +
