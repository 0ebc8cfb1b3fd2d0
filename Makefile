# The README's two commands: `make run` (demo service) and `make test` (every test).
.PHONY: run test test-suites test-interop deps build bench bench-timing format-lint page-bench

deps:
	scripts/stage.sh install ./scripts/install-deps.sh

# Debug builds without DWARF: a cold build here takes 560 s instead of 1,053 s (the links and the two BoringSSL copies
# shrink). Symbol names stay for backtraces; `make test SWIFT_BUILD_FLAGS=` builds with DWARF for lldb. (The index
# store stays: on Linux the test build finds its tests through it.)
SWIFT_BUILD_FLAGS ?= -debug-info-format none

build: deps
	scripts/stage.sh build swift build --build-tests $(SWIFT_BUILD_FLAGS)

run: deps
	swift build $(SWIFT_BUILD_FLAGS)
	.build/debug/capture-server --settings Settings

# Test scratch files (temporary databases, settings) go under .build/test-tmp, emptied each run. Each suite runs twice,
# beside a throwaway PostgreSQL server on loopback (scripts/with-postgres.sh): on SQLite, then on PostgreSQL
# (CAPTURE_TEST_BACKEND=postgres: every Swift test world in a schema of its own, each web-view and interop server in a
# database of its own). The storage conformance suite runs against both backends each time.
SUITE_ENV = CAPTURE_SERVER_BIN=.build/debug/capture-server
WITH_PG = scripts/with-postgres.sh
# Two workers (pytest-xdist), each with its own server, mailbox and provider; the walks over every screen are one
# test per language, so the workers share them.
WEBVIEW_RUN = xvfb-run -a -s "-screen 0 1280x1024x24" /usr/bin/python3 -m pytest -q -n 2
WEBVIEW = $(WEBVIEW_RUN) Tests/WebView $(foreach name,$(POSTGRES_ONLY),--ignore=Tests/WebView/test_$(name).py)
INTEROP = /usr/bin/python3 -m pytest Tests/Interop -q
# schemathesis judges the API against its OpenAPI document, which no backend changes, so it runs on SQLite alone; the
# other interop files (Authlib, hostile load, passkeys, authenticator codes) run on both.
INTEROP_STORED = $(INTEROP) --ignore=Tests/Interop/test_schemathesis.py
# The web view runs each file once: on PostgreSQL, what storage changes end to end (sign-in and registration through
# the bridge, the session, recovery by mailed code, social sign-in, passkeys, second factors, account deletion on the
# service's pages and a customer's, a customer's profile saves with hidden fields, sessions, the data download, terms
# and their versions); on SQLite, the rest. Every storage rule is in the Swift suite on both backends, and the cluster
# test runs on PostgreSQL in every pass.
POSTGRES_ONLY = bridge session account_lifecycle social_sign_in passkeys two_factor account_deletion sessions \
	account_data terms janrain_trailhead_deletion janrain_hidden_fields oidc_sign_in
WEBVIEW_STORED = $(WEBVIEW_RUN) $(foreach name,$(POSTGRES_ONLY),Tests/WebView/test_$(name).py)
# The test bundle runs itself (as `swift test` runs it, Swift Testing only: there are no XCTest cases). `swift test`
# would first compile every package manifest again whenever the environment differs from its last run, as it does in
# each pass here (a new PostgreSQL port): about 15 s per pass.
SWIFT_TESTS = .build/debug/capture-bridgePackageTests.xctest --testing-library swift-testing

STAGE = scripts/stage.sh

# After the build, two lanes at once, each with its own scratch directory: the Swift suites and the web view on SQLite;
# the web view's PostgreSQL files and the interop suite. schemathesis, most of the interop lane, keeps one core busy
# at most, so the other core works on the first lane meanwhile instead of idling.
test: build format-lint
	rm -rf .build/test-tmp && mkdir -p .build/test-tmp/suites .build/test-tmp/interop .build/screenshots/postgres
	$(MAKE) --no-print-directory -j2 test-suites test-interop

test-suites:
	$(STAGE) "swift, SQLite" env $(SUITE_ENV) TMPDIR=$(CURDIR)/.build/test-tmp/suites $(WITH_PG) $(SWIFT_TESTS)
	$(STAGE) "swift, PostgreSQL" env $(SUITE_ENV) TMPDIR=$(CURDIR)/.build/test-tmp/suites CAPTURE_TEST_BACKEND=postgres \
		$(WITH_PG) $(SWIFT_TESTS)
	$(STAGE) "web view, SQLite" env $(SUITE_ENV) TMPDIR=$(CURDIR)/.build/test-tmp/suites $(WITH_PG) $(WEBVIEW)

# The web view's PostgreSQL files first, beside the Swift suites: two web-view runs at once cost far more processor
# time than one after the other.
test-interop:
	$(STAGE) "web view, PostgreSQL" env $(SUITE_ENV) TMPDIR=$(CURDIR)/.build/test-tmp/interop CAPTURE_TEST_BACKEND=postgres \
		CAPTURE_SCREENSHOTS=$(CURDIR)/.build/screenshots/postgres $(WITH_PG) $(WEBVIEW_STORED)
	$(STAGE) "interop, SQLite" env $(SUITE_ENV) TMPDIR=$(CURDIR)/.build/test-tmp/interop $(INTEROP)
	$(STAGE) "interop, PostgreSQL" env $(SUITE_ENV) TMPDIR=$(CURDIR)/.build/test-tmp/interop CAPTURE_TEST_BACKEND=postgres \
		$(WITH_PG) $(INTEROP_STORED)

# The toolchain's swift-format with the committed .swift-format: the tree as formatted, or the test run stops here
# (`swift format format -i -r Sources Tests Package.swift` fixes what it can).
format-lint:
	swift format lint --strict -r Sources Tests Package.swift

# Never part of `test`: release build, 100k users / 200k tokens, wrk on loopback (docs/benchmarks.md; ~12 minutes).
# First the wall-clock bounds the Swift tests measure but `make test` cannot hold, its two lanes sharing two cores
# (a revocation seen by another instance within a second; Tests/Support/TestTiming.swift): the same tests, each
# bound held, with nothing else running.
bench: bench-timing
	./scripts/install-deps.sh --bench
	./scripts/bench.sh

# The sign-in page in WebKit through a loopback proxy playing a 3G-like and a 4G-like link, first and return visit:
# time until the form shows and until the widget is ready, bytes, requests, round trips before the form,
# connections (docs/benchmarks.md, docs/adr/0070, 0073).
page-bench: build
	mkdir -p .build/test-tmp/page-bench
	@echo "| link | visit | form shown | widget ready | bytes | requests before the form | round trips | connections |"
	@echo "| --- | --- | --- | --- | --- | --- | --- | --- |"
	@env $(SUITE_ENV) CAPTURE_PAGE_BENCH=1 TMPDIR=$(CURDIR)/.build/test-tmp/page-bench \
		xvfb-run -a -s "-screen 0 1280x1024x24" /usr/bin/python3 -m pytest -q -s Tests/WebView/test_page_speed.py \
		-k mobile_link | grep -E '^\||passed|failed'

TIMED_SUITES = PostgresTokenCheckTests|PostgresChangeNoticeTests
bench-timing: build
	rm -rf .build/test-tmp/timing && mkdir -p .build/test-tmp/timing
	$(STAGE) "swift, timed" env $(SUITE_ENV) TMPDIR=$(CURDIR)/.build/test-tmp/timing CAPTURE_TEST_TIMING=1 $(WITH_PG) \
		$(SWIFT_TESTS) --filter '$(TIMED_SUITES)'
