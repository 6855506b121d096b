# mcp-conform: build, test and benchmark.
#
#   make build      bin/mcp-conform
#   make test       everything CI runs: test-unit, then test-e2e
#   make test-unit  go vet, the gofmt check, staticcheck, the go.mod tidiness check and
#                   the unit tests, under the race detector
#   make test-e2e   the end-to-end tests (e2e/): the built binary run as a subprocess
#                   (the binary itself is built without the race detector), the
#                   self-test over every fault, and the real third-party servers
#   make real-servers  install the real servers the e2e tests run against: the Go SDK
#                   fixture (fixtures/gosdk, its own module), the mcp-go fixture
#                   (fixtures/mcpgo, its own module) and the pinned npm packages
#                   of fixtures/npm (npm ci)
#   make browser    install headless Chromium (Debian's chromium package, as root) when
#                   missing, for the report.html, badge and matrix.html browser tests
#                   (part of test-e2e)
#   make bench      the full-run and floor benchmarks, then their summary, and the
#                   official suite as second referee (e2e/official_test.go)
#   make dist       release binaries in dist/: static (CGO_ENABLED=0), reproducible
#                   (-trimpath, -buildvcs=false) builds for linux, darwin and windows on
#                   amd64 and arm64, mcp-conform-OS-ARCH[.exe], stamped with VERSION
#                   (default: git describe; `mcp-conform --version` prints it), and
#                   their SHA256SUMS
#   make clean      remove bin/, dist/ and the default report directories
#

GO ?= go
# Never let a build rewrite go.mod or go.sum; modules still download on demand.
export GOFLAGS ?= -mod=readonly

GOFMT ?= $(shell $(GO) env GOROOT)/bin/gofmt
BIN := bin/mcp-conform
E2E_PKG := ./e2e/
# The race detector for every test binary; `make test RACE=` turns it off.
RACE ?= -race
# Bounds on one package's tests, so that a hang fails the run instead of stalling CI.
UNIT_TIMEOUT ?= 10m
E2E_TIMEOUT ?= 30m
# How many unit-test packages run at once (go test's default is the CPUs): many wait on
# their servers and timers, so four keep two cores busy (73 s instead of 130 s).
UNIT_PACKAGES ?= 4
# How many parallel e2e tests run at once (go test's default is the CPUs): a suite run
# waits on its servers now and then, so four keep two cores busy.
E2E_PARALLEL ?= 4

SHELL := bash
.SHELLFLAGS := -eu -o pipefail -c

.PHONY: all build test test-unit test-e2e vet fmt-check lint tidy-check bench bench-deps clean real-servers browser xmllint dist

all: build

build:
	$(GO) build -o $(BIN) ./cmd/mcp-conform

test: test-unit test-e2e

# vet, staticcheck and the e2e tests' binary compile as make dist does (no cgo,
# -trimpath): on a fresh machine the standard library and the dependencies are then
# compiled once for all of them and for the release test's first build (about 95 s of
# CPU less), and once more for the race detector.
DIST_ENV := CGO_ENABLED=0

vet:
	$(DIST_ENV) $(GO) vet -trimpath ./...

# Every Go file in the repository, but dependencies, test data and build output.
fmt-check:
	@files=$$(find . -name '*.go' -not -path './.git/*' -not -path '*/node_modules/*' \
		-not -path '*/testdata/*' -not -path './bin/*' | sort); \
	bad=$$($(GOFMT) -l $$files); \
	if [ -n "$$bad" ]; then echo "gofmt: these files need formatting (run gofmt -w):"; echo "$$bad"; exit 1; fi; \
	echo "gofmt: $$(echo "$$files" | wc -l) files formatted"

# staticcheck, pinned, fetched through the module proxy on first use (outside this
# module: it is a tool of the build, not a dependency of the code).
STATICCHECK ?= honnef.co/go/tools/cmd/staticcheck@v0.8.2
lint:
	$(DIST_ENV) GOFLAGS=-trimpath $(GO) run $(STATICCHECK) ./...
	cd fixtures/gosdk && $(DIST_ENV) GOFLAGS=-trimpath $(GO) run $(STATICCHECK) ./...
	cd fixtures/mcpgo && $(DIST_ENV) GOFLAGS=-trimpath $(GO) run $(STATICCHECK) ./...

# go.mod and go.sum list exactly what the code uses (this module and the Go SDK fixture's).
tidy-check:
	GOFLAGS= $(GO) mod tidy -diff
	cd fixtures/gosdk && GOFLAGS= $(GO) mod tidy -diff
	cd fixtures/mcpgo && GOFLAGS= $(GO) mod tidy -diff

# xmllint validates junit.xml against the JUnit schemas in the tests (reports/reportstest);
# on a fresh Debian CI machine, running as root, install it.
xmllint:
	@command -v xmllint >/dev/null || { [ "$$(id -u)" = 0 ] && apt-get update -qq && apt-get install -y -qq libxml2-utils >/dev/null; } || \
		{ echo "xmllint is missing: apt-get install libxml2-utils"; exit 1; }

# The unit tests: every package but e2e.
test-unit: vet fmt-check lint tidy-check xmllint
	pkgs=$$($(GO) list ./... | grep -v '/e2e$$'); \
	$(GO) test $(RACE) -count=1 -p $(UNIT_PACKAGES) -timeout $(UNIT_TIMEOUT) $$pkgs

# MCPCONFORM_REAL=1 makes a missing real server a test failure instead of a skip.
# The self-test writes its closing line (checks proven: N of M) to a file, printed
# here: go test shows no output of a passing package.
SELFTEST_SUMMARY := $(CURDIR)/bin/selftest-summary.txt
test-e2e: real-servers browser xmllint
	rm -f $(SELFTEST_SUMMARY)
	MCPCONFORM_REAL=1 MCPCONFORM_SELFTEST_SUMMARY=$(SELFTEST_SUMMARY) $(GO) test $(RACE) -count=1 -parallel $(E2E_PARALLEL) -timeout $(E2E_TIMEOUT) $(E2E_PKG)
	@cat $(SELFTEST_SUMMARY)
	@echo "report.html as headless Chromium rendered it: bin/test-output/report-html-failures.png"
	@echo "the badges as headless Chromium rendered them: bin/test-output/badges.png"
	@echo "a merged ecosystem matrix.html as headless Chromium rendered it: bin/test-output/matrix-html.png (and matrix-html-check.png, one check across the runs)"

real-servers: bin/gosdk-fixture bin/mcpgo-fixture fixtures/npm/node_modules/.package-lock.json

# Headless Chromium for e2e/html_browser_test.go (report.html, the badges and the
# ecosystem matrix.html), from
# Debian's archive on a fresh (root) CI machine; a machine that has chromium already
# is left alone.
browser:
	@if command -v chromium >/dev/null 2>&1 || command -v chromium-browser >/dev/null 2>&1; then \
		echo "browser: $$(command -v chromium || command -v chromium-browser)"; \
	elif [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
		apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y chromium; \
	else \
		echo "browser: chromium is missing; install it (apt-get install chromium) or run make as root on Debian"; exit 1; \
	fi

bin/gosdk-fixture: fixtures/gosdk/go.mod fixtures/gosdk/go.sum fixtures/gosdk/main.go fixtures/gosdk/auth.go
	cd fixtures/gosdk && $(GO) build -o ../../bin/gosdk-fixture .

bin/mcpgo-fixture: fixtures/mcpgo/go.mod fixtures/mcpgo/go.sum fixtures/mcpgo/main.go
	cd fixtures/mcpgo && $(GO) build -o ../../bin/mcpgo-fixture .

fixtures/npm/node_modules/.package-lock.json: fixtures/npm/package.json fixtures/npm/package-lock.json
	cd fixtures/npm && npm ci --no-audit --no-fund

# The official TypeScript suite and a Node >= 22 to run it (an npm package that ships
# the binary), pinned in fixtures/npm-bench, for make bench only; and xmllint, with
# which every report the bench reads is checked against the JUnit schemas.
bench-deps: real-servers xmllint fixtures/npm-bench/node_modules/.package-lock.json

fixtures/npm-bench/node_modules/.package-lock.json: fixtures/npm-bench/package.json fixtures/npm-bench/package-lock.json
	cd fixtures/npm-bench && npm ci --no-audit --no-fund

# The benchmarks, ten runs each, then one process that prints every figure of the speed issues
# (full runs against floors, ours against the official suite, the scale run, peak
# RSS) and of issue 23 (twenty targets of --targets against the best schedule of
# their own times) with its goal and whether it holds. MCPCONFORM_BENCH_N sets the
# runs (default 5; at most 3 of the twenty targets).
bench: build bench-deps
	$(GO) test -count=1 -run '^$$' -bench . -benchtime 10x $(E2E_PKG)
	MCPCONFORM_BENCH=1 $(GO) test -count=1 -v -timeout 30m -run '^(TestBenchSummary|TestBenchTargets|TestOfficialReferee)$$' $(E2E_PKG)

# Release builds. The same commit, toolchain and VERSION give the same bytes
# (e2e TestDistReproducible builds one platform twice, the second time with an empty
# build cache): no cgo, no paths of this machine (-trimpath), no VCS stamp that a
# dirty tree would change (-buildvcs=false; VERSION says the commit instead), no
# symbol table (-s -w). DIST_DIR and DIST_PLATFORMS narrow it, as the test does.
DIST_DIR ?= dist
DIST_PLATFORMS ?= linux/amd64 linux/arm64 darwin/amd64 darwin/arm64 windows/amd64 windows/arm64
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo unknown)
DIST_LDFLAGS = -s -w -X main.version=$(VERSION)

dist:
	rm -rf $(DIST_DIR)
	mkdir -p $(DIST_DIR)
	for p in $(DIST_PLATFORMS); do \
		os=$${p%/*}; arch=$${p#*/}; ext=; \
		if [ "$$os" = windows ]; then ext=.exe; fi; \
		echo "dist: $(DIST_DIR)/mcp-conform-$$os-$$arch$$ext"; \
		CGO_ENABLED=0 GOOS=$$os GOARCH=$$arch $(GO) build -trimpath -buildvcs=false \
			-ldflags '$(DIST_LDFLAGS)' -o $(DIST_DIR)/mcp-conform-$$os-$$arch$$ext ./cmd/mcp-conform; \
	done
	cd $(DIST_DIR) && if command -v sha256sum >/dev/null; then sha256sum mcp-conform-*; \
		else shasum -a 256 mcp-conform-*; fi > SHA256SUMS
	@echo "dist: $(DIST_DIR)/SHA256SUMS (version $(VERSION))"

clean:
	rm -rf bin dist mcp-conform-report mcp-conform-matrix fixtures/npm/node_modules fixtures/npm-bench/node_modules
