"""RACF queue security profile resolution: what this chapter takes, and the checks its notebook applies."""

from mqperf.parameters import DataFile, Flag, Internal, Text

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


def preflight(p: dict):
    """Load the rules and profiles and resolve the queues as the notebook does."""
    from mqperf import racf
    from mqperf.analysis import racf_profiles

    table_rules = racf.load_rules(p["rules"])
    queue_list = [q.strip() for q in str(p["queues"]).split(",") if q.strip()]
    group = str(p["qsg"]).strip() or None
    racf_profiles.row_examples(table_rules, ssid=p["ssid"], qsg=group or "QSG1",
                               queue=queue_list[0] if queue_list else "SYSTEM.ADMIN.COMMAND.QUEUE")
    if p["data"]:
        profiles = racf_profiles.load_profiles(p["data"])
    else:
        profiles = racf_profiles.article_profiles(table_rules, ssid=p["ssid"], qsg=group or "QSG1")
    racf_profiles.reader_report(profiles, ssid=p["ssid"], qsg=group, queues=queue_list,
                                generic_switches=p["generic_switches"])
    return profiles
