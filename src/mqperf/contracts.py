"""Data contracts: the columns each chapter needs from a reader's file.

A contract is a Table Schema. Required columns must be present; others are used when
present; extra columns are ignored. ``mqperf run`` checks a reader's file against the
chapter's contract before executing anything, and the chapter checks it again on load.
"""

TASK_SCALING = {
    "title": "Throughput against concurrency (tasks, threads, connections)",
    "fields": [
        {"name": "tasks", "type": "integer", "unit": "tasks", "description": "Concurrency: connector tasks.max (or threads, clients)",
         "constraints": {"required": True, "minimum": 1}},
        {"name": "rate_msg_s", "type": "number", "unit": "msg/s", "description": "Measured throughput at that concurrency",
         "constraints": {"required": True, "exclusiveMinimum": 0}},
        {"name": "series", "type": "string", "description": "Optional: one curve per distinct value (e.g. workload name)"},
        {"name": "connector", "type": "string", "description": "Optional: source or sink; prefixed to the series name"},
        {"name": "gp_cpus", "type": "integer", "unit": "CPUs", "description": "Optional: CPUs; rows with other CPU counts form their own series",
         "constraints": {"minimum": 1}},
        {"name": "basis", "type": "string", "description": "Optional: measured (default) or derived",
         "constraints": {"enum": ["measured", "derived"]}},
    ],
}

CONTRACTS = {"task_scaling": TASK_SCALING}


def describe(name: str) -> str:
    """A one-paragraph text of a contract's columns, for --help and the book."""
    contract = CONTRACTS[name]
    parts = []
    for f in contract["fields"]:
        req = "required" if f.get("constraints", {}).get("required") else "optional"
        unit = f" [{f['unit']}]" if f.get("unit") else ""
        parts.append(f"{f['name']}{unit} ({f['type']}, {req})")
    return f"{contract['title']}: " + ", ".join(parts)
