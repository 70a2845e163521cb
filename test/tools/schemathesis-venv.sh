#!/usr/bin/env bash
# Creates (once) a cached virtualenv with schemathesis, the OpenAPI fuzzer the
# API test runs against a live server; prints the path of its `st` command.
set -euo pipefail
SCHEMATHESIS_VERSION=4.32.5
cache="${PCG_CACHE:-$HOME/.cache/pcg}"
venv="$cache/schemathesis-$SCHEMATHESIS_VERSION"
if [ ! -x "$venv/bin/st" ] || ! "$venv/bin/st" --version >/dev/null 2>&1; then
  mkdir -p "$cache"
  rm -rf "$venv"
  python3 -m venv "$venv" >&2
  "$venv/bin/pip" install --quiet --disable-pip-version-check "schemathesis==$SCHEMATHESIS_VERSION" >&2
fi
echo "$venv/bin/st"
