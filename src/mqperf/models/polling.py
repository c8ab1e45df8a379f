"""MQGET calls per message for a get-with-wait consumer (the Kafka "MQ as a source" connector).

Behaviour modelled (seed 000): the connector issues an MQGET with a wait of W seconds (30 s
in version 1.3.2). When a message arrives, that get returns it; the connector processes it
for τ seconds and then immediately issues an MQGET with no wait. That get succeeds if a
message is on the queue, and the cycle of no-wait gets continues; when one finds the queue
empty ("empty get") the connector goes back to MQGET-with-wait. A wait that expires with no
message is an empty get too.

With Poisson arrivals at rate λ and constant processing time τ (ρ = λτ < 1):

* expired waits before a message arrives: geometric, mean e^{−λW} / (1 − e^{−λW});
* messages taken before the queue is found empty: the messages served in an M/D/1 busy
  period that starts with one message, mean 1/(1 − ρ) (Kleinrock 1975, §5.9);
* so, by renewal–reward, MQGET calls per message

      G(λ) = 1 + (1 − λτ) / (1 − e^{−λW})

With τ = 0 every success is followed by one empty get: G → 2 at high rates and
G ≈ 1 + 1/(λW) at trickle rates (one message every 43 s with W = 30 s gives G = 3, the
"3 MQGETs per successful get" of seed 000). With no messages the connector issues one
get per W seconds: 3600/W an hour per task.

When it misleads: arrivals in bursts (batch jobs) give fewer empty gets than Poisson; several
tasks on one queue share the arrivals (this counts them per task with rate λ/tasks, which
assumes the queue manager spreads messages evenly among the waiting gets); τ varies.
"""

from __future__ import annotations

import math

from mqperf.errors import ModelError


def _check(arrival_rate, wait, processing_time):
    lam, w, tau = float(arrival_rate), float(wait), float(processing_time)
    if not math.isfinite(lam) or lam < 0:
        raise ModelError(f"arrival rate must be ≥ 0, not {arrival_rate!r}")
    if not math.isfinite(w) or w <= 0:
        raise ModelError(f"the get-with-wait interval must be greater than zero, not {wait!r}")
    if not math.isfinite(tau) or tau < 0:
        raise ModelError(f"processing time must be ≥ 0, not {processing_time!r}")
    return lam, w, tau


def gets_per_message(arrival_rate, wait, processing_time=0.0) -> float:
    """G = 1 + (1 − λτ)/(1 − e^{−λW}): MQGET calls per message delivered.

    Parameters
    ----------
    arrival_rate
        λ, messages per second arriving on the queue (per task).
    wait
        W, the get-with-wait interval in seconds.
    processing_time
        τ, seconds between a successful get and the next no-wait get.

    Returns
    -------
    float
        inf when λ = 0 (gets but no messages); 1 when λτ ≥ 1 (the consumer never finds the
        queue empty, so every get succeeds).
    """
    lam, w, tau = _check(arrival_rate, wait, processing_time)
    if lam == 0:
        return math.inf
    if lam * tau >= 1:
        return 1.0
    return 1.0 + (1.0 - lam * tau) / -math.expm1(-lam * w)


def empty_gets_per_message(arrival_rate, wait, processing_time=0.0) -> float:
    """G − 1: unsuccessful MQGETs (expired waits and empty no-wait gets) per message."""
    return gets_per_message(arrival_rate, wait, processing_time) - 1.0


def gets_per_hour(arrival_rate, wait, processing_time=0.0, *, tasks: int = 1) -> float:
    """All MQGET calls per hour by ``tasks`` tasks sharing arrivals at rate λ.

    Each task sees λ/tasks; with λ = 0 this is the idle polling rate tasks·3600/W.
    """
    if isinstance(tasks, bool) or not float(tasks).is_integer() or tasks < 1:
        raise ModelError(f"tasks must be a whole number ≥ 1, not {tasks!r}")
    lam, w, tau = _check(arrival_rate, wait, processing_time)
    if lam == 0:
        return idle_polls_per_hour(w, tasks=tasks)
    per_task = lam / tasks
    return tasks * per_task * 3600.0 * gets_per_message(per_task, w, tau)


def idle_polls_per_hour(wait, *, tasks: int = 1) -> float:
    """Gets per hour with no messages: tasks × 3600 / W (120 per task for W = 30 s)."""
    _, w, _ = _check(0.0, wait, 0.0)
    if isinstance(tasks, bool) or not float(tasks).is_integer() or tasks < 1:
        raise ModelError(f"tasks must be a whole number ≥ 1, not {tasks!r}")
    return tasks * 3600.0 / w


def idle_cost_per_hour(wait, cost_per_get, *, tasks: int = 1) -> float:
    """CPU per hour of idle polling: idle polls × cost of one empty get (same unit as the cost)."""
    if not math.isfinite(float(cost_per_get)) or cost_per_get <= 0:
        raise ModelError("cost per get must be greater than zero")
    return idle_polls_per_hour(wait, tasks=tasks) * float(cost_per_get)


def arrival_rate_for_gets_per_message(target, wait) -> float:
    """λ at which G = target when τ = 0: λ = −ln(1 − 1/(target − 1)) / W (needs target > 2)."""
    _check(0.0, wait, 0.0)
    if target <= 2:
        raise ModelError("with τ = 0 there are always at least 2 gets per message: target must exceed 2")
    return -math.log1p(-1.0 / (target - 1.0)) / float(wait)
