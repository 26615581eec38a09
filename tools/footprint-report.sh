#!/usr/bin/env bash
# The footprint report: tools/footprint_report.py (what it measures, its environment, what it needs).
exec python3 "$(dirname "$0")/footprint_report.py" "$@"
