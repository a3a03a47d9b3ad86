# make bench writes, beside its table, the table by pair and the picture
# BENCHMARKS.md shows (bench/convert_report.py); the picture needs
# matplotlib, which the benchmarks' venv adds to the tests'
# (bench/requirements.txt). make bench-report writes both again from the
# table alone, without measuring.

.PHONY: bench-report

BENCH_PYTHON = $(shell NX_CACHE=$(NX_CACHE) scripts/python-env tests/python/requirements.txt bench/requirements.txt)

bench: PYTHON = $(BENCH_PYTHON)

bench-report:
	$(BENCH_PYTHON) bench/convert_report.py bench/results/convert.md
