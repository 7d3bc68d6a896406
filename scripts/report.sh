#!/usr/bin/env bash
# report.sh: kept for callers that know this name; the report is written by
# scripts/report.py (same options, same exit codes: see its --help).
exec python3 "$(dirname "${BASH_SOURCE[0]}")/report.py" "$@"
