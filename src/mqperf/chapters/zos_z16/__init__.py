"""MQ for z/OS on z16: expected (LSPR) against measured, costs that moved, scaling with CPUs.

Moving a workload from one machine to the next (IBM z15 to z16), what change in CPU per
transaction and in peak rate should a planner expect, and how many CPUs reach a target rate?
:func:`analyse` fits the Universal Scalability Law to the peak rate against CPUs per workload and
machine (:mod:`.fits`), compares the two machines at the CPU counts both measured, sets the CPU
change beside IBM's LSPR expectation, and plans CPUs on the new machine from its fit. Its
sentences and about-passages are in :mod:`.text`, the orchestration in :mod:`.analysis`.
"""

from mqperf.declarations import DataFile, Integer, Internal, Number, Text

CHAPTER = "zos_z16"
#: The example file: synthetic, made by tools/make_zos_z16_example.py.
EXAMPLE = "zos_z16.csv"
#: The contract's columns.
MACHINE, CPUS, X, COST, WORKLOAD = "machine", "cpus", "rate_msg_s", "cpu_us_per_tx", "workload"
#: The workload label of a file that names none.
ALL = "all"
#: Sentences name at most this many series one by one; the tables give the rest.
NAMED = 8
#: The LSPR table is IBM's z15 -> z16 expectation: it is set beside machines with these names.
LSPR_FROM, LSPR_TO = "z15", "z16"

PARAMETERS = {
    "data": DataFile(help="peak rate against CPUs per machine: a CSV with machine, cpus, rate_msg_s "
                          "[, cpu_us_per_tx, workload, basis], or a book dataset", contract=CHAPTER),
    "lspr": DataFile(help="IBM's LSPR expected improvement of z16 over z15 by CPUs and RNI (the z16 report's "
                          "page 7)", contract="z16_lspr_expectation", files=False),
    "ams": DataFile(help="IBM's published change in AMS transaction cost and throughput from z15 to z16, by message "
                         "size and policy", contract="z16_ams_change", files=False),
    "tls_key": DataFile(help="IBM's published CPU per TLS secret key negotiation on z15 and z16, by CipherSpec",
                        contract="z16_tls_secret_key_cost", files=False),
    "from_machine": Text(help="the machine moved from (as the data's machine column names it)", max_length=40),
    "to_machine": Text(help="the machine moved to", max_length=40),
    "target_rate_msg_s": Number(help="planning question: how many CPUs on the machine moved to for this rate?",
                                unit="msg/s", minimum=0, exclusive_minimum=True, maximum=1e10),
    "plan_cpus": Integer(help="planning question: the change in rate and CPU per transaction at this many CPUs",
                         unit="CPUs", minimum=1, maximum=1024),
    "cards_dir": Internal(help="where model cards go; mqperf run sets it to DIR/models"),
}


def analyse(p: dict):
    """Everything the chapter shows, for the parameters ``p`` (see :data:`PARAMETERS`)."""
    from mqperf.chapters.zos_z16 import analysis

    return analysis.analyse(p)
