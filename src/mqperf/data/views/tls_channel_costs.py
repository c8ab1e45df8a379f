"""The book's TLS datasets in the shapes the ``tls_channel_costs`` chapter reads.

``tls_channel_costs`` holds every comparison of seed 002 in one long table; the renegotiation
rows become the contract's (message size, SSLRKEYC, ratio) rows. Seed 002 says "when 1MB of
data has flowed" without the SSLRKEYC value set: the book reads 1MB as 1,048,576 bytes, as MQ
counts SSLRKEYC in bytes.
"""

from __future__ import annotations

import pandas as pd

RENEGOTIATION = "renegotiate_every_1MB_vs_none"
BOOK_SSLRKEYC = 1024 * 1024
SIZE_COMPARISON = "ssl_vs_no_ssl"


def renegotiation(name: str, frame: pd.DataFrame) -> pd.DataFrame:
    """The renegotiation ratios as contract rows, with the source's qualifier ("nearly") kept."""
    rows = frame[frame["comparison"] == RENEGOTIATION]
    return pd.DataFrame({
        "message_size_bytes": rows["message_size_bytes"].astype("int64").to_numpy(),
        "sslrkeyc_bytes": BOOK_SSLRKEYC,
        "cost_ratio": rows["cost_ratio"].astype(float).to_numpy(),
        "basis": rows["basis"].to_numpy(),
        "qualifier": rows["qualifier"].fillna("").to_numpy(),
    })


def published(name: str, frame: pd.DataFrame) -> pd.DataFrame:
    """The other comparisons (TLS against none by size; CipherSpec against CipherSpec)."""
    rows = frame[frame["comparison"] != RENEGOTIATION]
    out = rows[["comparison", "message_size", "message_size_bytes", "scope", "increase_pct", "cost_ratio",
                "qualifier", "note"]].copy()
    out["kind"] = ["size" if c == SIZE_COMPARISON else "cipher" for c in out["comparison"]]
    out[["qualifier", "note"]] = out[["qualifier", "note"]].fillna("")
    return out.reset_index(drop=True)


def connect_costs(name: str, frame: pd.DataFrame) -> pd.DataFrame:
    """TLS increment per client connect and disconnect beside the basic cost, by SHARECNV and listener."""
    basic = frame[frame["component"] == "basic"].set_index(["sharecnv", "listener"])["cpu_us"]
    inc = frame[frame["component"] == "tls_increment"]
    return pd.DataFrame({
        "sharecnv": inc["sharecnv"].astype(int).to_numpy(),
        "listener": inc["listener"].to_numpy(),
        "basic_us": [float(basic[(s, lst)]) for s, lst in zip(inc["sharecnv"], inc["listener"])],
        "tls_increment_us": inc["cpu_us"].astype(float).to_numpy(),
        "env_id": inc["env_id"].to_numpy(),
        "seed": inc["seed"].to_numpy(),
    })


def hardware(name: str, frame: pd.DataFrame) -> pd.DataFrame:
    """Which hardware does what in a TLS channel (seed 002), the general items only."""
    keep = frame["item"].isin(["handshake (secret key negotiation)", "data transport", "secret key negotiations",
                               "CPACF per core on zEC12", "cores sharing one CPACF on zEnterprise 196"])
    out = frame[keep]
    value = [t if isinstance(t, str) else f"{v:g} {u}" for v, u, t in zip(out["value_num"], out["unit"], out["value_text"])]
    return pd.DataFrame({"item": out["item"].to_numpy(), "value": value,
                         "note": out["note"].fillna("").to_numpy()})


def environment(name: str, frame: pd.DataFrame) -> pd.DataFrame:
    """The test environments, as stored."""
    return frame


VIEWS = {"data": renegotiation, "published": published, "connect_costs": connect_costs, "hardware": hardware,
         "environment": environment}

#: Other book datasets this chapter reads on its own data (the build hashes them).
READS = ('test_environments', 'tls_crypto_hardware', 'tls_sslrkeyc_examples')
