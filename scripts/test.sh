#!/usr/bin/env bash
# The whole test suite: unit, integration, CLI (incl. the golden corpus and, when
# ../shared/conformance is present, netcdf-c's fixtures) for every crate, and the cloud
# tests against local emulators this script starts and stops: SeaweedFS for S3
# (scripts/s3_server.sh), fake-gcs-server and Azurite (scripts/cloud_servers.sh).
# Without an emulator its tests are skipped with a printed reason; under CI=true a
# missing emulator fails the run.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/s3_server.sh
. scripts/s3_server.sh
# shellcheck source=scripts/cloud_servers.sh
. scripts/cloud_servers.sh
s3_server_start
gcs_server_start
azure_server_start
# In CI an emulator that does not start is a failure, not a skip.
if [ "${CI:-}" = true ]; then
    for v in NCZARR_TEST_S3_ENDPOINT NCZARR_TEST_GCS_ENDPOINT NCZARR_TEST_AZURE_ENDPOINT; do
        if [ -z "${!v:-}" ]; then
            echo "CI: $v is not set: its emulator did not start" >&2
            exit 1
        fi
    done
fi
status=0
cargo test --workspace --locked "$@" || status=$?
# Skipped cloud tests are said again last, where a passing run's reader looks.
if [ -n "${NCZARR_SKIPPED_EMULATORS:-}" ]; then
    echo "NOTE: the tests against these emulators were SKIPPED, not passed: ${NCZARR_SKIPPED_EMULATORS%; }" >&2
fi
exit "$status"
