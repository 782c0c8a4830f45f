#!/usr/bin/env bash
# The progress API against its contract: Modules/ProgressAPI/openapi.yaml validated as
# OpenAPI 3.1, then a real `wellflow serve` (SQLite) driven by schemathesis from it.
# Checks: no server error, status codes, content types, headers and response bodies as documented, schema-violating
# requests refused, and stateful sequences (a created row read, changed, deleted).
# Not checked: that every schema-valid request is accepted ("positive data
# acceptance"), because some rules are not expressible in the schema (a real calendar
# day, `from` not after `to`).
# CONTRACT_DATABASE=postgres://… runs the same check with serve on PostgreSQL.
#   Tools/contract-check.sh [WELLFLOW_BINARY]
set -euo pipefail
cd "$(dirname "$0")/.."
binary="${1:-$(swift build --show-bin-path)/wellflow}"
python3 -c "import schemathesis" 2>/dev/null ||
  python3 -m pip install --quiet --disable-pip-version-check schemathesis==4.32.5
python3 -c "import openapi_spec_validator" 2>/dev/null ||
  python3 -m pip install --quiet --disable-pip-version-check openapi-spec-validator==0.7.1
# The document itself first: valid OpenAPI 3.1 (schemathesis no longer validates it).
python3 -m openapi_spec_validator Modules/ProgressAPI/openapi.yaml
work="$(mktemp -d)"
trap 'kill "$server" 2>/dev/null || true; rm -rf "$work"' EXIT
export WELLFLOW_API_KEY="contract-key"
WELLFLOW_JWT_SECRET="$(head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n')"
export WELLFLOW_JWT_SECRET
"$binary" serve --port 0 --database "${CONTRACT_DATABASE:-$work/backend.sqlite}" >"$work/serve.log" 2>&1 &
server=$!
url=""
for _ in $(seq 1 600); do
  url="$(sed -n 's/^serving the progress API on \(http[^ ]*\).*/\1/p' "$work/serve.log")"
  [ -n "$url" ] && break
  kill -0 "$server" 2>/dev/null || { cat "$work/serve.log"; exit 1; }
  sleep 0.1
done
[ -n "$url" ] || { echo "wellflow serve did not start"; cat "$work/serve.log"; exit 1; }
token="$("$binary" token contract-user --ttl 2h)"
# A fixed seed and deterministic generation: the same requests on every run.
# Run from the scratch folder: schemathesis keeps a cache of what it found in the
# working directory, which must not land in the repository.
document="$PWD/Modules/ProgressAPI/openapi.yaml"
(cd "$work" && python3 -m schemathesis.cli run "$document" --url "$url" \
  -H "X-API-Key: $WELLFLOW_API_KEY" -H "Authorization: Bearer $token" \
  --checks all --exclude-checks positive_data_acceptance \
  --max-examples "${CONTRACT_EXAMPLES:-100}" --seed 1 --generation-deterministic --no-color)
if grep -q "^wellflow serve: failure " "$work/serve.log"; then
  echo "wellflow serve logged a failure:"
  cat "$work/serve.log"
  exit 1
fi
echo "contract check passed against $url"
