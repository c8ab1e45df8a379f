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

MESSAGE_SIZE = {
    "title": "Message rate against message size",
    "fields": [
        {"name": "msg_size_kb", "type": "number", "unit": "KB", "description": "Message size in KB (1 KB = 1,024 bytes)",
         "constraints": {"required": True, "exclusiveMinimum": 0}},
        {"name": "rate_msg_s", "type": "number", "unit": "msg/s", "description": "Measured messages per second at that size",
         "constraints": {"required": True, "exclusiveMinimum": 0}},
        {"name": "series", "type": "string", "description": "Optional: one fit per distinct value (e.g. workload name)"},
        {"name": "connector", "type": "string", "description": "Optional: source or sink; prefixed to the series name"},
        {"name": "tasks", "type": "integer", "unit": "tasks", "description": "Optional: tasks.max; rows with different values form their own series",
         "constraints": {"minimum": 1}},
        {"name": "approx_mb_s", "type": "number", "unit": "MB/s", "description": "Optional: MB/s as you recorded it, checked against rate x size",
         "constraints": {"exclusiveMinimum": 0}},
        {"name": "basis", "type": "string", "description": "Optional: measured (default) or derived",
         "constraints": {"enum": ["measured", "derived"]}},
    ],
}

UOW = {
    "title": "Throughput (and log bytes) against messages per commit",
    "fields": [
        {"name": "msgs_per_commit", "type": "number", "unit": "msgs", "description": "Messages per commit (unit of work), average over the run",
         "constraints": {"required": True, "minimum": 1}},
        {"name": "rate_msg_s", "type": "number", "unit": "msg/s", "description": "Measured messages per second at that unit of work",
         "constraints": {"required": True, "exclusiveMinimum": 0}},
        {"name": "log_bytes_per_msg", "type": "number", "unit": "bytes/msg", "description": "Optional: MQ log bytes written per message (e.g. from SMF 115 log statistics)",
         "constraints": {"exclusiveMinimum": 0}},
        {"name": "operation", "type": "string", "description": "Optional: get_commit or put_commit; log bytes are fitted per operation"},
        {"name": "series", "type": "string", "description": "Optional: one throughput fit per distinct value"},
        {"name": "basis", "type": "string", "description": "Optional: measured (default) or derived",
         "constraints": {"enum": ["measured", "derived"]}},
    ],
}

IDLE_COSTS = {
    "title": "CPU of an idle connector against tasks.max",
    "fields": [
        {"name": "tasks", "type": "integer", "unit": "tasks", "description": "Connector tasks.max while idle",
         "constraints": {"required": True, "minimum": 1}},
        {"name": "cpu_s_per_hour", "type": "number", "unit": "CPU s/h", "description": "CPU seconds per hour used while idle",
         "constraints": {"required": True, "exclusiveMinimum": 0}},
        {"name": "connector", "type": "string", "description": "Optional: source or sink; one fit per value"},
        {"name": "series", "type": "string", "description": "Optional: one fit per distinct value"},
        {"name": "basis", "type": "string", "description": "Optional: measured (default) or derived",
         "constraints": {"enum": ["measured", "derived"]}},
    ],
}

CONTRACTS = {"task_scaling": TASK_SCALING, "message_size": MESSAGE_SIZE, "uow": UOW, "idle_costs": IDLE_COSTS}

CPU_SUFFICIENCY = {
    "title": "Share of time with sufficient CPUs (RMF in-ready distribution) against CPUs and load",
    "fields": [
        {"name": "gp_cpus", "type": "integer", "unit": "CPUs", "description": "Processors online: N in RMF's in-ready work unit distribution",
         "constraints": {"required": True, "minimum": 1}},
        {"name": "busy_pct", "type": "number", "unit": "%", "description": "Average busy of those processors over the interval",
         "constraints": {"required": True, "minimum": 0, "maximum": 100}},
        {"name": "sufficient_pct", "type": "number", "unit": "%", "description": "Percent of RMF samples with at most N in-ready work units (the '<= N' row)",
         "constraints": {"required": True, "minimum": 0, "maximum": 100}},
        {"name": "rate_msg_s", "type": "number", "unit": "msg/s", "description": "Optional: throughput in the same interval (gives CPU per message)",
         "constraints": {"exclusiveMinimum": 0}},
        {"name": "label", "type": "string", "description": "Optional: a name for the run or interval"},
        {"name": "basis", "type": "string", "description": "Optional: measured (default) or derived",
         "constraints": {"enum": ["measured", "derived"]}},
    ],
}

LATCH_CONTENTION = {
    "title": "Latch wait time against concurrency",
    "fields": [
        {"name": "tasks", "type": "integer", "unit": "tasks", "description": "Concurrency: connector tasks.max, threads, clients",
         "constraints": {"required": True, "minimum": 1}},
        {"name": "latch_s", "type": "number", "unit": "s", "description": "Total time all tasks waited for the latch during the run (class(3) accounting)",
         "constraints": {"required": True, "exclusiveMinimum": 0}},
        {"name": "latch", "type": "string", "description": "Optional: latch number or name; one fit per value"},
        {"name": "gp_cpus", "type": "integer", "unit": "CPUs", "description": "Optional: CPUs; rows with other CPU counts form their own series",
         "constraints": {"minimum": 1}},
        {"name": "basis", "type": "string", "description": "Optional: measured (default) or derived",
         "constraints": {"enum": ["measured", "derived"]}},
    ],
}

CONNECTION_COSTS = {
    "title": "CPU cost of a client connect and disconnect against channel configuration",
    "fields": [
        {"name": "sharecnv", "type": "integer", "description": "SVRCONN SHARECNV value",
         "constraints": {"required": True, "minimum": 0}},
        {"name": "listener", "type": "string", "description": "Listener the client connected to, e.g. local or shared",
         "constraints": {"required": True}},
        {"name": "cpu_us", "type": "number", "unit": "CPU us", "description": "CPU microseconds per MQCONNX + MQDISC, all address spaces",
         "constraints": {"required": True, "exclusiveMinimum": 0}},
        {"name": "tls", "type": "boolean", "description": "Optional: true when the channel used a TLS CipherSpec (default false)"},
        {"name": "suppress_x511", "type": "boolean", "description": "Optional: true with SET SYSTEM EXCLMSG(X511,X512) (default false)"},
        {"name": "basis", "type": "string", "description": "Optional: measured (default) or derived",
         "constraints": {"enum": ["measured", "derived"]}},
    ],
}

TLS_RENEGOTIATION = {
    "title": "Channel cost ratio with secret-key renegotiation against message size and SSLRKEYC",
    "fields": [
        {"name": "message_size_bytes", "type": "integer", "unit": "bytes", "description": "Message size",
         "constraints": {"required": True, "minimum": 1}},
        {"name": "sslrkeyc_bytes", "type": "integer", "unit": "bytes", "description": "SSLRKEYC of the run (bytes between renegotiations; > 0)",
         "constraints": {"required": True, "minimum": 1}},
        {"name": "cost_ratio", "type": "number", "description": "Channel-initiator CPU per message at this SSLRKEYC over the same with SSLRKEYC(0)",
         "constraints": {"required": True, "minimum": 1}},
        {"name": "basis", "type": "string", "description": "Optional: measured (default) or derived",
         "constraints": {"enum": ["measured", "derived"]}},
    ],
}

CONTRACTS.update({
    "cpu_sufficiency": CPU_SUFFICIENCY,
    "latch_contention": LATCH_CONTENTION,
    "connection_costs": CONNECTION_COSTS,
    "tls_renegotiation": TLS_RENEGOTIATION,
})

# -- z/OS and storage chapters (zEDC, NativeHA storage, IMS bridge, Q Replication, RACF) --

ZEDC_SIZE_EFFECT = {
    "title": "Effect of zEDC archive compression by message size",
    "fields": [
        {"name": "message_size_bytes", "type": "integer", "unit": "bytes", "description": "Message size of the run",
         "constraints": {"required": True, "minimum": 1}},
        {"name": "qm_tcb_increase_pct", "type": "number", "unit": "%",
         "description": "Queue manager TCB CPU with zEDC-compressed archives over the same run without, in percent",
         "constraints": {"required": True}},
        {"name": "peak_throughput_increase_pct", "type": "number", "unit": "%",
         "description": "Optional: peak throughput with compressed archives over without, in percent"},
        {"name": "basis", "type": "string", "description": "Optional: measured (default) or derived",
         "constraints": {"enum": ["measured", "derived"]}},
    ],
}

AMQSRUA_LOG = {
    "title": "Recovery log figures from amqsrua -c DISK -t Log, one row per publication",
    "fields": [
        {"name": "write_latency_us", "type": "number", "unit": "us", "description": "Log - write latency",
         "constraints": {"required": True, "exclusiveMinimum": 0}},
        {"name": "write_size_bytes", "type": "number", "unit": "bytes", "description": "Log - write size (average physical write)",
         "constraints": {"required": True, "exclusiveMinimum": 0}},
        {"name": "physical_bytes_s", "type": "number", "unit": "bytes/s", "description": "Log - physical bytes written, the /sec rate",
         "constraints": {"required": True, "minimum": 0}},
        {"name": "logical_bytes_s", "type": "number", "unit": "bytes/s", "description": "Optional: Log - logical bytes written, the /sec rate",
         "constraints": {"exclusiveMinimum": 0}},
        {"name": "interval_s", "type": "number", "unit": "s", "description": "Optional: the publication's interval",
         "constraints": {"exclusiveMinimum": 0}},
        {"name": "series", "type": "string", "description": "Optional: a label per row (configuration, queue manager, time)"},
    ],
}

IMS_CPU_SCALING = {
    "title": "Transaction rate against CPUs, with the coupling facility's busy share",
    "fields": [
        {"name": "cpus", "type": "integer", "unit": "CPs", "description": "Processors of the LPAR being varied",
         "constraints": {"required": True, "minimum": 1}},
        {"name": "rate_tps", "type": "number", "unit": "tx/s", "description": "Measured transaction rate",
         "constraints": {"required": True, "exclusiveMinimum": 0}},
        {"name": "series", "type": "string", "description": "Optional: one curve per value"},
        {"name": "cf_busy_pct", "type": "number", "unit": "%", "description": "Optional: CF busy at that rate (RMF CF activity)",
         "constraints": {"minimum": 0, "maximum": 100}},
        {"name": "cf_processors", "type": "integer", "unit": "processors", "description": "Optional: the CF's dedicated processors",
         "constraints": {"minimum": 1}},
        {"name": "basis", "type": "string", "description": "Optional: measured (default) or derived",
         "constraints": {"enum": ["measured", "derived"]}},
    ],
}

QREP_CHANNEL = {
    "title": "Channel scenarios to plan (and, optionally, measured channel rates)",
    "fields": [
        {"name": "rtt_ms", "type": "number", "unit": "ms", "description": "Round trip (ping, or the channel's NETTIME)",
         "constraints": {"required": True, "exclusiveMinimum": 0}},
        {"name": "tcp_window_bytes", "type": "integer", "unit": "bytes", "description": "TCP send/receive buffer (TCPSENDBFRSIZE, TCPRCVBUFRSIZE)",
         "constraints": {"required": True, "minimum": 1}},
        {"name": "message_bytes", "type": "integer", "unit": "bytes", "description": "Message size on the channel",
         "constraints": {"required": True, "minimum": 1}},
        {"name": "batch_size", "type": "integer", "unit": "messages", "description": "Optional: BATCHSZ (default 200)",
         "constraints": {"minimum": 1}},
        {"name": "batchlim_kb", "type": "number", "unit": "KB", "description": "Optional: BATCHLIM (default 5000)",
         "constraints": {"exclusiveMinimum": 0}},
        {"name": "link_mb_s", "type": "number", "unit": "MB/s", "description": "Optional: link bandwidth (MB = 10^6 bytes)",
         "constraints": {"exclusiveMinimum": 0}},
        {"name": "commit_ms", "type": "number", "unit": "ms", "description": "Optional: per-batch time beyond the round trip",
         "constraints": {"minimum": 0}},
        {"name": "measured_mb_s", "type": "number", "unit": "MB/s", "description": "Optional: the rate you measured (DIS CHS)",
         "constraints": {"exclusiveMinimum": 0}},
        {"name": "series", "type": "string", "description": "Optional: channel or scenario name"},
    ],
}

RACF_PROFILES = {
    "title": "RACF profiles defined (RLIST / SEARCH output), one per row",
    "fields": [
        {"name": "class", "type": "string", "description": "RACF class of the profile",
         "constraints": {"required": True, "enum": ["MQADMIN", "MXADMIN", "GMQADMIN", "GMXADMIN", "MQQUEUE", "MXQUEUE", "GMQQUEUE", "GMXQUEUE"]}},
        {"name": "profile", "type": "string", "description": "Profile name as defined (discrete or generic)",
         "constraints": {"required": True, "pattern": "[A-Za-z0-9@#$%*&._-]+"}},
    ],
}

CONTRACTS.update({
    "zedc_size_effect": ZEDC_SIZE_EFFECT,
    "amqsrua_log": AMQSRUA_LOG,
    "ims_cpu_scaling": IMS_CPU_SCALING,
    "qrep_channel": QREP_CHANNEL,
    "racf_profiles": RACF_PROFILES,
})


def describe(name: str) -> str:
    """A one-paragraph text of a contract's columns, for --help and the book."""
    contract = CONTRACTS[name]
    parts = []
    for f in contract["fields"]:
        req = "required" if f.get("constraints", {}).get("required") else "optional"
        unit = f" [{f['unit']}]" if f.get("unit") else ""
        parts.append(f"{f['name']}{unit} ({f['type']}, {req})")
    return f"{contract['title']}: " + ", ".join(parts)
