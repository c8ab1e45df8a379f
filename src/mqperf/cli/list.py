"""``mqperf list``: the chapters, their data contracts, the formats each input accepts, their parameters."""

from __future__ import annotations

import json

from mqperf.cli._common import EXIT_OK


def add_parser(sub):
    ls = sub.add_parser("list", help="chapters with their parameters and data contract")
    ls.add_argument("--json", action="store_true", help="machine-readable output")
    return ls


def command(args) -> int:
    """Chapters, their data contract and their declared parameters (types, ranges, defaults)."""
    from mqperf import catalog, parameters
    from mqperf.data import ingest
    from mqperf.data.contracts import describe

    chapters = catalog.chapters()
    if args.json:
        print(json.dumps([{"name": c.name, "title": c.title, "contract": c.contract, "data_parameter": c.data_parameter,
                           "formats": {name: [f.name for f in fmts] for name, fmts in ingest.accepted(c.name).items()},
                           "parameters": parameters.describe(c.name)} for c in chapters], indent=2, default=str))
        return EXIT_OK
    for c in chapters:
        print(f"{c.name}  {c.title}")
        if c.contract:
            print(f"  --data FILE ({c.data_parameter}): {describe(c.contract)}")
        for name, fmts in ingest.accepted(c.name).items():
            if fmts:
                print(f"  formats ({name}): {', '.join(f.title for f in fmts)}")
        for p in parameters.describe(c.name):
            if p["name"] == c.data_parameter:
                continue
            unit = f" {p['unit']}" if p.get("unit") else ""
            run = f"; mqperf run: {json.dumps(p['run_default'])}" if p["run_default"] != p["default"] else ""
            print(f"  -p {p['name']} {json.dumps(p['default'])}  ({p['type']}{unit}: {p['range']}{run})")
            print(f"       {p['help']}")
        print()
    return EXIT_OK
