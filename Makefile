# pcg: `make run` starts the service on its embedded default, `make test` runs every test.
SHELL := /bin/bash
# better-sqlite3 builds from source; node-gyp finds Node's headers under its install prefix.
export npm_config_nodedir ?= $(shell node -p "require('path').resolve(process.execPath, '../..')")

.PHONY: install run test test-kafka typecheck bench clean

node_modules/.installed: package.json package-lock.json
	npm ci --no-audit --no-fund
	@touch $@

install: node_modules/.installed

run: install
	node api/bin.mjs serve --demo

typecheck: install
	npx tsc --noEmit -p .

test: install typecheck
	npx vitest run --config test/vitest.config.ts

# Only the tests against a real Kafka broker: needs Java 17; Maven fetches the broker's jars once into ~/.cache/pcg.
test-kafka: install
	npx vitest run --config test/vitest.config.ts test/kafka

bench: install
	node --import tsx test/bench/ingest.ts
	node --import tsx test/bench/import.ts
	node --import tsx test/bench/snapshot.ts
	node --import tsx test/bench/reading-cost.ts
	node --import tsx test/bench/isolation.ts

clean:
	rm -rf node_modules data
