# The README's two commands: `make run` (demo service) and `make test` (every test).
.PHONY: run test deps build bench

deps:
	./scripts/install-deps.sh

build: deps
	swift build --build-tests

run: deps
	swift build
	.build/debug/capture-server --settings Settings

# Test scratch files (temporary databases, settings) go under .build/test-tmp, emptied each run. The Swift suite runs
# twice beside a throwaway PostgreSQL server on loopback (scripts/with-postgres.sh): on SQLite, then with every test
# world on PostgreSQL (CAPTURE_TEST_BACKEND); the storage conformance suite runs against both backends each time.
test: build
	rm -rf .build/test-tmp && mkdir -p .build/test-tmp
	TMPDIR=$(CURDIR)/.build/test-tmp scripts/with-postgres.sh swift test --skip-build
	TMPDIR=$(CURDIR)/.build/test-tmp CAPTURE_TEST_BACKEND=postgres scripts/with-postgres.sh swift test --skip-build
	TMPDIR=$(CURDIR)/.build/test-tmp CAPTURE_SERVER_BIN=.build/debug/capture-server xvfb-run -a -s "-screen 0 1280x1024x24" /usr/bin/python3 -m pytest Tests/WebView -q
	TMPDIR=$(CURDIR)/.build/test-tmp CAPTURE_SERVER_BIN=.build/debug/capture-server /usr/bin/python3 -m pytest Tests/Interop -q

# Never part of `test`: release build, 100k users / 200k tokens, wrk on loopback (docs/benchmarks.md; ~12 minutes).
bench:
	./scripts/install-deps.sh --bench
	./scripts/bench.sh
