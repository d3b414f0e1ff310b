#!/usr/bin/env bash
# The whole test suite: unit, integration, CLI (incl. the golden corpus and, when
# ../shared/conformance is present, netcdf-c's fixtures) for every crate, and the S3
# tests against a local SeaweedFS server that this script starts and stops
# (scripts/s3_server.sh; without it they are skipped with a printed reason).
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/s3_server.sh
. scripts/s3_server.sh
s3_server_start
cargo test --workspace --locked "$@"
