"""RACF queue security profile resolution: the article's table of switch profiles run as code,
checked against IBM's documented order over every combination, and a reader's own profiles
resolved: which levels MQ checks, which profile protects each queue, and what in the profiles
does not do what it seems to. The rules are :mod:`mqperf.models.racf`.

The chapter's parts: :mod:`.fits` (the rules at work, as the frames the chapter shows), :mod:`.text`
(its sentences and the passages about the article) and :mod:`.analysis` (``analyse``).
"""

from mqperf.declarations import DataFile, Flag, Internal, Text

# z/OS subsystem and queue sharing group names: 1-4 characters, a letter or @ # $ first.
_NAME4 = r"[A-Za-z@#$][A-Za-z0-9@#$]{0,3}"

PARAMETERS = {
    "data": DataFile(help='a CSV of your defined profiles (columns class, profile); "" evaluates the article\'s '
                          "own advice", contract="racf_profiles", optional=True),
    "rules": DataFile(help="the article's table of profile rules", contract="racf_profile_rules"),
    "ssid": Text(help="your queue manager's subsystem name", max_length=4, pattern=_NAME4,
                 pattern_help="1 to 4 letters, digits or @ # $, not starting with a digit"),
    "qsg": Text(help='its queue sharing group; "" when it is not in one', max_length=4, pattern=f"({_NAME4})?",
                pattern_help="empty, or 1 to 4 letters, digits or @ # $, not starting with a digit"),
    # An MQ queue name has at most 48 characters; 200 of them fit in this length.
    "queues": Text(help="queues to resolve, comma-separated", max_length=10000),
    "generic_switches": Flag(help="count generic MQADMIN profiles as switches (the article's reading; IBM says "
                                  "they are ignored)"),
    "cards_dir": Internal(help="unused: this chapter fits no model"),
}

CHAPTER = "racf_profiles"
#: The queue the table's rows are resolved for when the reader names none.
DEFAULT_QUEUE = "SYSTEM.ADMIN.COMMAND.QUEUE"
#: More queues than this are summarised rather than read one by one.
BULLETS = 6
#: The comparison's verdicts, in the order tables and sentences give them.
VERDICTS = ["agrees", "disagrees", "not covered"]


def analyse(p: dict):
    """Run the article's table, compare it with the documented order, and resolve the profiles (:mod:`.analysis`)."""
    from mqperf.chapters.racf_profiles import analysis

    return analysis.analyse(p)
