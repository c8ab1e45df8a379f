"""The IMS bridge chapter's passages about the published measurements (seed: the IMS bridge article).

Shown only when the chapter runs on the book's own dataset (:meth:`Results.about`): the
system the article measured, what it changed and said, and where it overstates. Results the
chapter computes (fits, predictions, CF queueing) are sentences of the chapter module.
"""

from __future__ import annotations


def system(r, pts) -> None:
    if not r.book_data:
        from mqperf.present import prose

        # Counts in words only up to ten (prose.count): a larger count is no result a table shows.
        n = pts["series"].nunique()
        r.text("system", f"Your file holds {prose.count(n, 'series', 'series') if n <= 10 else 'many series'}, "
                         f"with CPU counts from {int(pts['cpus'].min()):,} to {int(pts['cpus'].max()):,}; the "
                         "article's system and tuning steps are not part of it.")
        return
    from mqperf.data import views

    env = views.system("ims_bridge")
    listing = "\n".join(f"* {c}, {a.replace('_', ' ')}: {v}" for c, a, v in
                        zip(env["component"], env["attribute"], env["value"]))
    r.about("system", f"""Moving from IMS V12 to IMS V13, the IMS bridge (OTMA) throughput of a set
of MQ request/reply tests fell from about 11,000 to 700 transactions per second. Three queue
managers in a queue sharing group ran each on its own LPAR; queue manager 1 shared LPAR 1 with the
IMS control region and its 16 message processing regions (MPRs), queue managers 2 and 3 reached IMS
through XCF. Batch jobs on every LPAR looped putting a message to the IMS bridge queue and waiting
for the reply. The {{ref}}`Data catalog <data-catalog>` gives every quote:

{listing}""")


def tuning(r) -> None:
    r.about("tuning_about", """The settings the article changed on IMS V13
({ref}`dataset <data-ims_bridge_tuning>`):

* **PWFI** (pseudo wait-for-input) was already on, "but it does make a difference".
* **QBUF**: IMS 13's initial value was 5 message-queue buffers where IMS 10 had been tuned to,
  and IMS 12 fell back to, 255. The IMS trace report field *NUMBER OF WAITS BECAUSE NO BUFFER
  AVAILABLE* shows a shortage. The value chosen is not printed.
* **PSBW** from 24 KB to 200 KB: not all MPRs were processing work because there was not
  enough storage to run them together; afterwards all 16 did.
* **Online log data sets** from 50 to 1,500 cylinders each, and from 5 to 20 of them: they
  had switched often and the archive jobs had run out of free logs.
* **IMSMON** at 270 cylinders: not a performance change, but the old size could not hold a
  minute of trace data.
* **zHPF** on all three LPARs: "in some cases" 20 % more throughput, most on the LPAR with
  the IMS region.

Only the zHPF step has a measured effect of its own; the others are reported together: "all of
these changes brought the IMS v13 bridge tests up to parity with IMS v12". No model can apportion
the recovery among them.""")


def rates(r) -> None:
    r.about("rates_about", """The rates are as printed ({ref}`dataset <data-ims_bridge_rates>`); the
CPU configuration gives the dedicated CPs of LPARs 1, 2 and 3, and only LPAR 1 changed, so the
chapter fits the rate against LPAR 1's CPs. The tuned IMS V13 rate on 3:3:3 is not printed: the
article says it reached parity with IMS V12, so the book uses IMS V12's "around 11,000" and marks
the point `derived`. IMS V13 beat IMS V12 only after LPAR 1 had more CPs; no IMS V12 run on 6:3:3
or 9:3:3 is reported, so the gain belongs to the CPs, not to the version
({ref}`erratum E037 <errata-e037>`). The article calls 6:3:3 "still constrained" and reports
LPARs 2 and 3 (three CPs each) constrained at 9:3:3, with the CF 75 % busy.""")


def plan(r) -> None:
    r.about("plan_about", """The article itself says that driving harder needs CPs on LPARs 1 and 2,
a system change on LPAR 3, and the CF: LPAR 1's CPs are not the only thing to add, and no fit of
these three points sees the other limits.""")


def cf(r) -> None:
    r.about("cf_about", """The article gives the CF's busy share (75 %) at the 9:3:3 peak only, on its
four dedicated processors ({ref}`dataset <data-test_environments>`), and calls 75 % too high
without stating a limit; the chapter's limit is the parameter `cf_max_util`.""")


def errata(r) -> None:
    r.about("errata", """Errata in the source for this chapter:

* {ref}`E037 <errata-e037>`: "eventually IMS V13 had a higher throughput than IMS V12" compares
  IMS V13 on more CPs with IMS V12 on fewer; at equal CPs the article reports parity.""", title=False)
