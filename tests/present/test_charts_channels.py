"""Every chart the chapters draw is encoded with typed channels (``charts.channels``).

Altair turns a shorthand string or a plain dict into a channel by hashing the JSON schema of
every class it knows, about 3 ms a channel; 40 channels a chapter made that a tenth of a
chapter's analysis. A chart built around ``charts.channels`` never takes that path;
tests/chapters/test_preflight.py runs every chapter's example under the watch (conftest's
``untyped_channels``), which the first test here shows can see a shorthand.
"""

from __future__ import annotations

import altair as alt

from mqperf.present import charts


def test_the_watch_sees_a_shorthand_string(untyped_channels):
    alt.Chart().mark_line().encode(x="a:Q", tooltip=["a:Q"])
    assert sorted(e for e, _ in untyped_channels) == ["tooltip", "x"]


def test_channels_gives_the_same_spec_as_shorthand():
    shorthand = dict(x="a:Q", y=alt.Y("b:Q", title="b"), y2="c:Q", color=alt.value("#333"),
                     tooltip=["a:Q", alt.Tooltip("b:Q", title="B")], strokeDash={"value": [4, 2]})
    plain = alt.Chart().mark_line().encode(**shorthand).to_dict(validate=False)
    typed = alt.Chart().mark_line().encode(**charts.channels(**shorthand)).to_dict(validate=False)
    assert typed == plain
