"""Properties of the RACF chapter's report on generated profile files.

Files hold a random choice of the nine switch profiles (by name, by a generic profile, or
misspelt by a letter), queue profiles at both levels (discrete and generic of every form),
profiles in classes MQ does not read, and, awkwardly, nothing but noise, one row, or
20,000 rows. Every report must be honest (tests/chapters/props.py), and the answer to the
chapter's planning question (which levels are checked, which profile each queue's open is
checked against) must be the one a plain scan over every profile gives.
"""


import pandas as pd
import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from mqperf.errors import DataError, ModelError
from mqperf.models import racf

import props  # noqa: E402

# No shrinking: each example runs the whole chapter, and a derandomized failure reproduces as drawn.
FAST = settings(max_examples=20, deadline=None, derandomize=True, phases=[Phase.explicit, Phase.generate],
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
QUEUES = ["SYSTEM.ADMIN.COMMAND.QUEUE", "SYSTEM.DEFAULT.LOCAL.QUEUE", "PAYROLL.IN", "APP.X"]
QUEUE_FORMS = ["{p}.SYSTEM.**", "{p}.SYSTEM.*", "{p}.SYSTEM.ADMIN.*", "{p}.SYS*", "{p}.**", "{p}.PAYROLL.IN",
               "{p}.%%%%%%%.IN", "{p}.APP.*", "{p}.SYSTEM.DEFAULT.LOCAL.QUEUE"]


@st.composite
def profile_files(draw):
    ssid = draw(st.sampled_from(["QMA", "Q#1", "MQ@Z"]))
    qsg = draw(st.sampled_from(["QSG1", "G$", ""]))
    names = racf.switch_names(ssid, qsg or None)
    rows = []
    for key, name in names.items():
        if name is None:
            continue
        how = draw(st.sampled_from(["absent", "absent", "absent", "defined", "generic", "slip"]))
        if how == "defined":
            rows.append(("MQADMIN", name))
        elif how == "generic":
            rows.append(("MQADMIN", name.rsplit(".", 1)[0] + ".**"))
        elif how == "slip":
            rows.append(("MQADMIN", name[:-1]))  # one letter short, as the article's row 3 prints it
    for prefix in filter(None, [ssid, qsg]):
        for form in draw(st.lists(st.sampled_from(QUEUE_FORMS), max_size=4, unique=True)):
            rows.append((draw(st.sampled_from(["MQQUEUE", "MXQUEUE"])), form.format(p=prefix)))
    if draw(st.booleans()):
        rows.append(("GMQQUEUE", f"{ssid}Q"))
    if draw(st.booleans()):
        rows.append(("MXADMIN", f"{ssid}.RESLEVEL"))
    if not rows:
        rows.append(("MQADMIN", f"{ssid}.NOTHING"))
    params = {"ssid": ssid, "qsg": qsg, "generic_switches": draw(st.booleans()),
              "queues": ", ".join(draw(st.lists(st.sampled_from(QUEUES), min_size=0, max_size=3, unique=True)))}
    return pd.DataFrame(rows, columns=["class", "profile"]), params


def scanned(frame, ssid, qsg, queues, generic):
    """The levels and each queue's profile by a scan over every profile, without the index."""
    admin = [p.upper() for c, p in zip(frame["class"], frame["profile"]) if c in racf.ADMIN_CLASSES]
    queue = [p.upper() for c, p in zip(frame["class"], frame["profile"]) if c in racf.QUEUE_CLASSES]
    state = {k: (n is not None and (n in admin or (generic and any(racf.is_generic(p) and racf.covers(p, n)
                                                                     for p in admin))))
             for k, n in racf.switch_names(ssid, qsg).items()}
    checks = racf.resolve(state, in_qsg=qsg is not None)
    used = {}
    for q in queues:
        found = "none"
        if checks.security and checks.qmgr_level:
            found = racf.most_specific(queue, f"{ssid}.{q}") or "none"
        if found == "none" and checks.security and checks.qsg_level and qsg:
            found = racf.most_specific(queue, f"{qsg}.{q}") or "none"
        used[q] = found
    return checks.levels, used


def check_answer(r, frame, params):
    ssid, qsg = params["ssid"].upper(), params["qsg"].upper() or None
    queues = [q.strip() for q in params["queues"].split(",") if q.strip()]
    levels, used = scanned(frame, ssid, qsg, queues, params["generic_switches"])
    summary = r.show("summary").frame.set_index("question")
    assert summary.loc["levels checked", "documented order"].replace(" (CSQH026I)", "") == levels
    if queues:
        shown = dict(zip(r.show("queues").frame["queue"], r.show("queues").frame["profile used"]))
        assert shown == used


@FAST
@given(drawn=profile_files())
def test_report_is_honest_and_resolves_as_a_scan(tmp_path, drawn):
    frame, params = drawn
    path = props.frame_to_csv(frame, tmp_path / "profiles.csv")
    try:
        r = props.run("racf_profiles", path, **params)
    except (DataError, ModelError):
        pytest.fail("a file of valid profile names was refused")
    props.assert_report_is_honest(r, {})
    check_answer(r, frame, params)


def test_twenty_thousand_profiles(tmp_path):
    rows = [("MQADMIN", "QSG1.NO.QMGR.CHECKS"), ("MQADMIN", "QMA.YES.QMGR.CHECKS")]
    rows += [("MQQUEUE", f"QMA.APP{i:05d}.**") for i in range(10_000)]
    rows += [("MQQUEUE", f"QSG1.APP{i:05d}.*") for i in range(9_997)] + [("MQQUEUE", "QSG1.SYSTEM.**")]
    frame = pd.DataFrame(rows, columns=["class", "profile"])
    path = props.frame_to_csv(frame, tmp_path / "many.csv")
    params = {"ssid": "QMA", "qsg": "QSG1", "generic_switches": False, "queues": "SYSTEM.ADMIN.COMMAND.QUEUE, APP00042.X"}
    r = props.run("racf_profiles", path, **params)
    props.assert_report_is_honest(r, {})
    check_answer(r, frame, params)
    assert r.show("profile_counts").frame.set_index("class").loc["all", "profiles"] == 20_000


@pytest.mark.parametrize("profile", ["QMA.ÜBER.**", "QMA/SYSTEM/**", ""])
def test_names_racf_cannot_hold_are_refused_in_one_line(tmp_path, profile):
    path = tmp_path / "bad.csv"
    pd.DataFrame({"class": ["MQQUEUE", "MQADMIN"], "profile": [profile, "QMA.NO.QSG.CHECKS"]}).to_csv(path, index=False)
    with pytest.raises(DataError) as err:
        props.run("racf_profiles", path)
    assert "\n" not in str(err.value) and "profile" in str(err.value)
