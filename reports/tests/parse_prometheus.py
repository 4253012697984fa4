#!/usr/bin/env python3
"""Parses a Prometheus text-format file with the Python client's own parser (Debian:
python3-prometheus-client) and prints every sample, one a line, as
`name label=value,label=value value`, labels sorted; exit 1 if it does not parse.

Usage: parse_prometheus.py FILE"""
import sys

from prometheus_client.parser import text_string_to_metric_families


def main():
    text = open(sys.argv[1]).read()
    try:
        for family in text_string_to_metric_families(text):
            if family.type != "gauge" or not family.documentation:
                print(f"family {family.name}: type {family.type}, help '{family.documentation}'", file=sys.stderr)
                return 1
            for s in family.samples:
                labels = ",".join(f"{k}={v}" for k, v in sorted(s.labels.items()))
                print(f"{s.name} {labels} {s.value:.17g}")
    except Exception as e:  # the parser raises ValueError and others on malformed text
        print(f"does not parse: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
