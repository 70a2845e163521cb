#!/usr/bin/env bash
# Creates (once) a cached virtualenv with pm4py, the reference implementation
# that tests and benchmarks compare against; prints its python. The product
# never imports pm4py (AGPL): only test/ and test/bench/ call this.
set -euo pipefail
PM4PY_VERSION=2.7.23.11
cache="${PCG_CACHE:-$HOME/.cache/pcg}"
venv="$cache/pm4py-$PM4PY_VERSION"
if [ ! -x "$venv/bin/python" ] || ! "$venv/bin/python" -c 'import pm4py' >/dev/null 2>&1; then
  mkdir -p "$cache"
  python3 -m venv "$venv" >&2
  "$venv/bin/pip" install --quiet --disable-pip-version-check "pm4py==$PM4PY_VERSION" >&2
fi
echo "$venv/bin/python"
