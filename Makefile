# pcg: `make run` starts the service on its embedded default, `make test` runs every test.
SHELL := /bin/bash
# better-sqlite3 builds from source; node-gyp finds Node's headers under its install prefix.
export npm_config_nodedir ?= $(shell node -p "require('path').resolve(process.execPath, '../..')")

.PHONY: install bundle run test test-kafka typecheck docs bench soak clean

node_modules/.installed: package.json package-lock.json
	npm ci --no-audit --no-fund
	@touch $@

# The web page (api/web/, Vite + TypeScript) is bundled into api/web/dist/, which
# pcg serve answers at /; rebuilt when a source of it changes.
WEB_SOURCES := $(wildcard api/web/src/*) api/web/index.html api/web/vite.config.ts api/web/tsconfig.json

api/web/dist/index.html: node_modules/.installed $(WEB_SOURCES)
	npx vite build --config api/web/vite.config.ts
	@touch $@

# The pcg command bundled (esbuild: api/build.mjs) into dist/, which api/bin.mjs runs while it is newer than every
# source (it starts in ~0.15 s against ~0.4 s through tsx). api/build.mjs rebuilds only when a source is newer, by
# the same check api/bin.mjs makes (api/bundle.mjs), so the list of sources lives in one place.
bundle: node_modules/.installed
	node api/build.mjs

install: node_modules/.installed api/web/dist/index.html bundle

run: install
	node api/bin.mjs serve --demo

typecheck: install
	npx tsc --noEmit -p .
	npx tsc --noEmit -p api/web

# The Kafka suite runs after the rest, one file at a time: each file starts a
# real broker (a JVM), and two cores do not host several beside the other tests.
test: install typecheck
	npx vitest run --config test/vitest.config.ts --exclude 'test/kafka/**'
	$(MAKE) --no-print-directory test-kafka

# Only the tests against a real Kafka broker: needs Java 17; Maven fetches Kafka 3.9.2's jars once into ~/.cache/pcg.
test-kafka: install
	npx vitest run --config test/vitest.config.ts --no-file-parallelism test/kafka

# docs/configuration.md is written from the configuration schema (api/config.ts); test/api/config-doc.test.ts
# fails while it is not what this prints.
docs: node_modules/.installed
	node --import tsx test/tools/config-doc.ts > docs/configuration.md

bench: install
	node --import tsx test/bench/ingest.ts
	node --import tsx test/bench/import.ts
	node --import tsx test/bench/snapshot.ts
	node --import tsx test/bench/reading-cost.ts
	node --import tsx test/bench/isolation.ts
	node --import tsx test/bench/kafka.ts
	node --max-semi-space-size=64 --import tsx test/bench/kafka-stages.ts

# Soak (issue 14), bounded and not part of `make test`: `pcg serve` under MINUTES (default 10) of mixed load
# from four tenants, one of them pathological; RSS, descriptors and the others' p99 latency must stay flat.
MINUTES ?= 10
soak: install
	node --import tsx test/bench/soak.ts --minutes $(MINUTES)

clean:
	rm -rf node_modules data dist api/web/dist test/web/artifacts
