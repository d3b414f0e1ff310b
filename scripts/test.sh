#!/usr/bin/env bash
# The whole test suite: unit, integration, CLI (incl. the golden corpus and, when
# ../shared/conformance is present, netcdf-c's fixtures) for every crate.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo test --workspace --locked "$@"
