"""RACF queue security on z/OS: which switch profiles give which checks, and which profile
protects a queue.

Two sources, kept apart so each can be checked against the other:

* **The article's table** (seed 002, ``data/racf_profile_rules.csv``): each row says which
  MQADMIN switch profiles must be *defined* or *not defined* and which checks follow.
  :func:`table_decision` executes it as a decision table: the first ``switch_profiles`` row
  whose conditions all hold decides the checking levels (a blank condition is "either"),
  an ``override`` row whose conditions hold then turns its level on, and with both levels
  in use the ``queue_profile_selection`` rows pick the queue profile. A state no row
  matches is *not covered* by the table.
* **IBM's documented order of checking** (:func:`resolve`), complete for every
  combination (IBM MQ for z/OS documentation, "Profiles to control subsystem security" and
  "Profiles to control queue sharing group or queue manager level security"):

  - subsystem security: ``ssid.NO.SUBSYS.SECURITY`` present → no checks at all; else
    ``qsg.NO.SUBSYS.SECURITY`` absent → security on; present → on only if
    ``ssid.YES.SUBSYS.SECURITY`` is present. A queue manager outside a queue sharing group
    looks at ``ssid.NO.SUBSYS.SECURITY`` only.
  - queue-manager level: ``ssid.NO.QMGR.CHECKS`` present → off; else
    ``qsg.NO.QMGR.CHECKS`` absent → on; present → on only with ``ssid.YES.QMGR.CHECKS``.
    The queue-sharing-group level works the same way with ``NO.QSG.CHECKS`` and
    ``YES.QSG.CHECKS``. Outside a queue sharing group only queue-manager checks are made.
  - with subsystem security on, switching both levels off is not valid: MQ issues
    CSQH026I and checks at both levels.
  - with both levels on, MQ looks for a profile ``ssid.queue`` first and uses
    ``qsg.queue`` only when none is found (the article's rules 6 and 7).

:func:`compare` enumerates every combination of the switch profiles and says where the
table agrees with the documented order, disagrees, or is silent.

Generic profiles. The article says "defined" and "not defined" apply "to generic profiles
as well as specific profiles"; IBM's documentation says generic switch profiles (such as
``hlq.NO.**``) are ignored. By default a switch counts only when a profile of exactly its
name is defined (``generic_switches=False``, IBM's reading); ``generic_switches=True``
counts a generic MQADMIN profile that covers the name (the article's reading). Queue
profiles are always matched generically, with the general-resource rules of RACF
(:func:`covers`) and the most specific profile winning (:func:`most_specific`).

Speed: a reader's ``SEARCH`` output may hold a million profiles. A generic profile whose
leading qualifiers are literal can only cover names that start with those qualifiers, so
:class:`ProfileIndex` files profiles by their literal leading qualifiers (up to two) and a
lookup tries only the buckets a name could fall in; the answers are those of a scan over
every profile (tests/models/test_racf.py compares the two).

Profile names are compared in upper case (the MQADMIN and MQQUEUE classes hold upper-case
profiles only). RACF variables (``&``) and the group classes (GMQADMIN, GMQQUEUE) are not
modelled: switch profiles in a group class are ignored by MQ.

The package by role: :mod:`.names` (generic profile names: the matcher and its index),
:mod:`.order` (IBM's documented order and the profile protecting a queue), :mod:`.table` (the
article's table as a decision table, and the comparison of the two), :mod:`.evaluation` (a
reader's profiles). Every public name is importable from here, as ``racf.<name>``.
"""

from mqperf.models.racf.evaluation import evaluate, near_misses, warnings
from mqperf.models.racf.names import ProfileIndex, covers, is_generic, most_specific
from mqperf.models.racf.order import (ADMIN_CLASSES, QUEUE_CLASSES, SWITCHES, Checks, Profiles, queue_profile, resolve,
                                      switch_names, switch_state)
from mqperf.models.racf.table import (QUEUE_CONDITION, TABLE_SWITCHES, TableDecision, compare, compare_state,
                                      describe_state, row_profiles, row_state, table_decision)

__all__ = [
    "ADMIN_CLASSES", "QUEUE_CLASSES", "QUEUE_CONDITION", "SWITCHES", "TABLE_SWITCHES", "Checks", "ProfileIndex",
    "Profiles", "TableDecision", "compare", "compare_state", "covers", "describe_state", "evaluate", "is_generic",
    "most_specific", "near_misses", "queue_profile", "resolve", "row_profiles", "row_state", "switch_names",
    "switch_state", "table_decision", "warnings",
]
