"""Channel bounds: bandwidth-delay product, batch timing, link from two pings."""

import pytest
from numpy.testing import assert_allclose

from mqperf.errors import ModelError
from mqperf.models import channel


def test_window_bound_for_seed_002_buffer():
    # Seed 002: TCPSENDBFRSIZE 65536; 64 KB per 1 ms round trip = 65.5 MB/s; at 10 ms, a tenth.
    assert_allclose(channel.window_bound(65536, 1e-3), 65.536e6, rtol=1e-12)
    assert_allclose(channel.window_bound(65536, 10e-3), 6.5536e6, rtol=1e-12)
    assert_allclose(channel.effective_bandwidth(125e6, 65536, [1e-4, 1e-3]), [125e6, 65.536e6], rtol=1e-12)


def test_batch_time_and_throughput():
    # 200 messages of 100 KB at 100 MB/s with 2 ms per batch: 0.002 + 0.2 s.
    t = channel.batch_time(200, 100e3, 100e6, 2e-3)
    assert_allclose(t, 0.202, rtol=1e-12)
    assert_allclose(channel.batch_throughput(200, 100e3, 100e6, 2e-3), 200 / 0.202, rtol=1e-12)


def test_batch_size_for_fraction_reaches_the_fraction():
    size, bandwidth, overhead = 10e3, 100e6, 2e-3
    b = channel.batch_size_for_fraction(0.9, size, bandwidth, overhead)
    limit = bandwidth / size  # messages per second with no per-batch cost
    assert_allclose(channel.batch_throughput(b, size, bandwidth, overhead), 0.9 * limit, rtol=1e-12)
    assert_allclose(b, 9 * overhead * bandwidth / size, rtol=1e-12)  # 180 messages


def test_link_from_pings_recovers_latency_and_bandwidth():
    rtt0, bandwidth = 0.4e-3, 1e9 / 8  # 0.4 ms, 1 Gb/s
    rtt = lambda s: rtt0 + 2 * s / bandwidth  # noqa: E731 - payload crosses twice
    got = channel.link_from_pings(256, rtt(256), 4096, rtt(4096))
    assert_allclose(got, (rtt0, bandwidth), rtol=1e-9)


@pytest.mark.parametrize(
    "call, match",
    [
        (lambda: channel.window_bound(65536, 0), "round-trip"),
        (lambda: channel.window_bound(0, 1e-3), "window"),
        (lambda: channel.batch_time(0, 1e3, 1e6, 1e-3), "batch size"),
        (lambda: channel.batch_time(10, 1e3, 1e6, -1e-3), "overhead"),
        (lambda: channel.batch_size_for_fraction(1.0, 1e3, 1e6, 1e-3), "fraction"),
        (lambda: channel.link_from_pings(256, 1e-3, 256, 2e-3), "different ping sizes"),
        (lambda: channel.link_from_pings(256, 2e-3, 4096, 1e-3), "not slower"),
        (lambda: channel.link_from_pings(256, 0.01e-3, 4096, 1.0e-3), "negative base"),
    ],
)
def test_bad_input_raises_model_error(call, match):
    with pytest.raises(ModelError, match=match):
        call()


def test_batch_for_rate_is_the_smallest_whole_batch_reaching_the_target():
    size, bandwidth, overhead = 10_240.0, 50e6, 0.002
    for target in (1e6, 20e6, 40e6, 49e6):
        b = channel.batch_for_rate(target, size, bandwidth, overhead)
        assert float(channel.batch_throughput(b, size, bandwidth, overhead)) * size >= target
        assert b == 1 or float(channel.batch_throughput(b - 1, size, bandwidth, overhead)) * size < target
    assert channel.batch_for_rate(50e6, size, bandwidth, overhead) is None
