"""Every computed sentence of the TLS CipherSpecs chapter is true of the data that generated it: the
cheapest and dearest CipherSpec named are the generating ones, the stated ranges are the generating
ratios, the planning numbers are rate × CPU per round trip, a difference is claimed only with repeats and
a test that finds it, and the false sentences the rules are for are caught."""

import re
import sys
from pathlib import Path

import pandas as pd
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tests/chapters: the shared props
import props  # noqa: E402

from mqperf.present import prose  # noqa: E402

CASES = {
    "two CipherSpecs": {"A": (1.6, 1.5), "B": (2.5, 2.6)},
    "five, small scale": {"a": (1.2, 1.1), "b": (1.3, 1.35), "c": (3.0, 2.9), "d": (2.0, 2.2), "e": (1.5, 1.4)},
    "one CipherSpec": {"only": (1.9, 1.8)},
}


def _frame(specs, base_rate=40_000.0, base_cpu=40.0):
    rows = [{"cipherspec": "No TLS", "rate_rt_s": base_rate, "cpu_pct": base_cpu}]
    rows += [{"cipherspec": n, "rate_rt_s": base_rate / r, "cpu_pct": base_cpu * k / r} for n, (r, k) in specs.items()]
    return pd.DataFrame(rows)


def _sentences(r) -> str:
    return str(r["costs_text"]) + "\n" + str(r["plan_text"])


@pytest.mark.parametrize("case", list(CASES))
def test_every_sentence_is_true_of_the_generating_system(case, tmp_path):
    specs = CASES[case]
    path = props.write(tmp_path, _frame(specs), "gen.csv")
    rate = 10_000.0
    r = props.run("tls_ciphers", path, your_rate_rt_s=rate)
    props.assert_report_is_honest(r)
    text = str(r["costs_text"])
    cheapest = min(specs, key=lambda n: specs[n][1])
    dearest = max(specs, key=lambda n: specs[n][1])
    assert f"the least CPU per round trip was “{prose.escape(cheapest) if hasattr(prose, 'escape') else cheapest}”" in text \
        or f"“{cheapest}”'s, the most" in text
    assert f"the most “{dearest}”'s" in text
    rs = [v[0] for v in specs.values()]
    assert f"run at {prose.num(min(rs))} to {prose.num(max(rs))} times lower" in text
    # One run each: no difference is claimed.
    assert " differ in CPU" not in text
    plan = str(r["plan_text"])
    assert f"{prose.num(rate * 40.0 / 40_000.0)} % of its CPU without TLS" in plan
    assert f"{prose.num(rate * 40.0 / 40_000.0 * specs[cheapest][1])} %" in plan
    assert "extrapolated" not in plan  # 10,000 lies below every generated peak


def _violations(text: str, specs: dict) -> list[str]:
    """Sentences the rules forbid on single runs: a claimed difference, or a wrong cheapest."""
    bad = []
    if re.search(r"\bdiffer in CPU per round trip\b", text) and "t-test" not in text:
        bad.append("a difference claimed without a test")
    cheapest = min(specs, key=lambda n: specs[n][1])
    m = re.search(r"least CPU per round trip was “([^”]+)”", text)
    if m and m.group(1) != cheapest:
        bad.append("the wrong cheapest")
    return bad


def test_the_rules_catch_the_false_sentences_they_are_for():
    specs = CASES["two CipherSpecs"]
    assert _violations("* “s”: the least CPU per round trip was “B”'s.", specs) == ["the wrong cheapest"]
    assert _violations("* “s”: A and B differ in CPU per round trip.", specs) == ["a difference claimed without a test"]
    assert _violations("* “s”: the least CPU per round trip was “A”'s.", specs) == []
