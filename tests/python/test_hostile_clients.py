"""Hostile clients against `drtriton serve` (issue 9, items 5-7): every case ends in a 4xx, a
503 or a clean verdict, and the service answers /health afterwards.

The service runs with tests/eval/fake_worker.py (see test_service.py), so each case takes
seconds. Only loopback addresses: the slow clients connect from 127.0.0.2 and up (still the
loopback interface) so that the service counts them as other clients than the good one on
127.0.0.1. Every socket has a timeout and every loop a deadline.
"""
import http.client
import json
import select
import socket
import time

import pytest

from test_service import TASK, Service

DEPTH_ERROR = {"error": "the request body nests deeper than 64 levels"}
BUSY_LINE = "HTTP/1.1 503 Service Unavailable"


@pytest.fixture(scope="module")
def service(tmp_path_factory):
    s = Service(tmp_path_factory.mktemp("hostile") / "verdicts.sqlite", "--workers-per-gpu", "2",
                "--compile-timeout", "2", "--run-timeout", "4", "--request-timeout", "2")
    yield s
    assert s.stop() == 0


def raw_request(port, method, path, body=None, timeout=10):
    """(status, body as text): the body must be valid UTF-8, or this raises."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        conn.request(method, path, body=body, headers={"Content-Type": "application/json"})
        response = conn.getresponse()
        return response.status, response.read().decode("utf-8")  # strict: no bad bytes
    finally:
        conn.close()


def assert_healthy(service):
    assert service.request("GET", "/health", timeout=5)[0] == 200


def open_stalled(port, count, source):
    """`count` connections from `source` that send the start of a request, then stall."""
    socks = []
    for _ in range(count):
        s = socket.create_connection(("127.0.0.1", port), timeout=5, source_address=(source, 0))
        s.sendall(b"POST /verify HTTP/1.1\r\nHost: x\r\n")
        socks.append(s)
    return socks


def state(sock, wait=0.0):
    """'open' (nothing to read), 'closed' (end of stream or reset), or the status line the
    service answered with."""
    if not select.select([sock], [], [], wait)[0]:
        return "open"
    try:
        data = sock.recv(4096)
    except OSError:
        return "closed"
    return data.split(b"\r\n")[0].decode() if data else "closed"


def close_all(socks):
    for s in socks:
        s.close()


# --- item 5: deep nesting ---------------------------------------------------------------------

@pytest.mark.parametrize("path,body", [
    ("/verify", '{"task": "x", "candidate": "y", "options": %s}'),
    ("/verify", "%s"),
    ("/verify_batch", '{"items": [{"task": "x", "candidate": "y", "options": {"a": %s}}]}'),
], ids=["in-options", "whole-body", "in-a-batch-item"])
def test_100k_levels_of_nesting_get_a_400(service, path, body):
    deep = "[" * 100_000 + "]" * 100_000  # 200 KB; objects as deep are refused alike
    status, reply = service.request("POST", path, body % deep, timeout=10)
    assert (status, reply) == (400, DEPTH_ERROR)
    deep_objects = '{"a": ' * 100_000 + "1" + "}" * 100_000  # 600 KB
    status, reply = service.request("POST", path, body % deep_objects, timeout=10)
    assert (status, reply) == (400, DEPTH_ERROR)
    assert_healthy(service)


# --- item 6: slow clients ---------------------------------------------------------------------

def test_slow_clients_are_cut_off_and_a_good_client_is_served(service):
    # 80 connections from one client that never finish their request: 64 are served (the
    # per-client limit), 8 more may still ask /health, the rest get 503 at once.
    socks = open_stalled(service.port, 80, "127.0.0.2")
    try:
        deadline = time.monotonic() + 1.5  # a busy machine may take a while to turn 8 away
        while True:
            time.sleep(0.25)
            states = [state(s) for s in socks]
            if states.count("open") <= 72 or time.monotonic() > deadline:
                break
        assert states.count("open") <= 72
        turned_away = [st for st in states if st != "open"]
        assert len(turned_away) >= 8 and set(turned_away) <= {BUSY_LINE, "closed"}, states

        # Another client is served at once, /verify included.
        start = time.monotonic()
        assert_healthy(service)
        status, verdict = service.request(
            "POST", "/verify", {"task": TASK, "candidate": "FAKE:pass # during the slow clients"},
            timeout=10)
        assert status == 200 and "passed" in verdict
        assert time.monotonic() - start < 5

        # A byte every half second does not keep a connection: the whole request must arrive
        # within --request-timeout (2 s).
        stalled = [s for s, st in zip(socks, states) if st == "open"]
        deadline = time.monotonic() + 6
        while stalled and time.monotonic() < deadline:
            for s in stalled:
                try:
                    s.send(b"X")
                except OSError:
                    pass
            time.sleep(0.5)
            stalled = [s for s in stalled if state(s) == "open"]
        assert not stalled, f"{len(stalled)} slow connections outlived the request timeout"
    finally:
        close_all(socks)
    assert_healthy(service)


def test_connection_limits_answer_503_and_keep_health_answerable(tmp_path):
    s = Service(tmp_path / "verdicts.sqlite", "--max-connections", "4",
                "--max-connections-per-client", "2", "--request-timeout", "5")
    held = []
    try:
        # Two clients, two stalled connections each: every connection the service serves in
        # full is taken.
        held += open_stalled(s.port, 2, "127.0.0.2") + open_stalled(s.port, 2, "127.0.0.3")
        time.sleep(0.3)
        assert [state(c) for c in held] == ["open"] * 4

        # Over the limits, a connection may still ask /health and /stats; anything else is 503.
        assert_healthy(s)
        assert s.request("GET", "/stats", timeout=5)[0] == 200
        status, reply = s.request("POST", "/verify", {"task": TASK, "candidate": "FAKE:pass"},
                                  timeout=5)
        assert status == 503 and "too many connections" in reply["error"]

        # When even those few connections are taken, the next one gets 503 without being read.
        # Nine more connections for the eight health-only places: whichever the service admits
        # last is answered 503 at once (under load, the place the 503 above held may be given
        # back only after a stalled one was admitted: then that one is refused, the last not).
        extra = open_stalled(s.port, 8, "127.0.0.4")
        extra.append(socket.create_connection(("127.0.0.1", s.port), timeout=5,
                                              source_address=("127.0.0.5", 0)))
        held += extra
        deadline = time.monotonic() + 1.5  # before the stalled ones' 2 s health-only deadline
        states = ["open"] * len(extra)
        while True:
            states = [state(c) if was == "open" else was for c, was in zip(extra, states)]
            if BUSY_LINE in states or time.monotonic() > deadline:
                break
            time.sleep(0.05)
        assert set(states) <= {"open", BUSY_LINE}, states
        assert 1 <= states.count(BUSY_LINE) and states.count("open") <= 8, states

        # Once the slow clients are gone, the service serves in full again.
        close_all(held)
        deadline = time.monotonic() + 5
        while True:
            status, verdict = s.request("POST", "/verify",
                                        {"task": TASK, "candidate": "FAKE:pass # after"},
                                        timeout=10)
            if status != 503 or time.monotonic() > deadline:
                break
            time.sleep(0.1)
        assert status == 200 and "passed" in verdict
    finally:
        close_all(held)
        s.stop()


# --- item 7: bytes that are not UTF-8 in a worker's log -----------------------------------------

def test_a_worker_log_that_is_not_utf8_gives_a_clean_verdict(service):
    body = json.dumps({"task": TASK, "candidate": "FAKE:crash_bad_log # one"})
    status, text = raw_request(service.port, "POST", "/verify", body)
    assert status == 200, text
    verdict = json.loads(text)
    assert verdict["passed"] is False and "worker_crashed" in verdict["flags"]
    assert "\ufffd" in verdict["worker_log"] and "not UTF-8" in verdict["worker_log"]
    # The cache kept it, so the bytes were written there cleanly too.
    status, text = raw_request(service.port, "POST", "/verify", body)
    assert status == 200 and json.loads(text)["cached"] is True
    assert_healthy(service)


def test_a_batch_survives_a_worker_log_that_is_not_utf8(service):
    candidates = ["FAKE:crash_bad_log # batch", "FAKE:pass # batch", "FAKE:reject # batch"]
    body = json.dumps({"items": [{"task": TASK, "candidate": c} for c in candidates]})
    status, text = raw_request(service.port, "POST", "/verify_batch", body, timeout=30)
    assert status == 200, text
    verdicts = json.loads(text)["verdicts"]
    assert len(verdicts) == 3 and all("passed" in v for v in verdicts)
    assert "\ufffd" in verdicts[0]["worker_log"]
    assert_healthy(service)


def test_bad_utf8_in_a_path_gets_a_clean_404(service):
    status, text = raw_request(service.port, "GET", "/%ff%fe")
    assert status == 404 and json.loads(text) == {"error": "404 for GET /\ufffd\ufffd"}
    assert_healthy(service)


# --- item 8: seeds the worker cannot use ----------------------------------------------------------

@pytest.mark.parametrize("seed", [2**63 - 1, -(2**63), 2**64 - 1, 2**31, -1])
def test_a_seed_out_of_range_gets_a_400(service, seed):
    status, reply = service.request("POST", "/verify", {"task": TASK, "candidate": "FAKE:pass",
                                                        "options": {"seed": seed}}, timeout=5)
    assert (status, reply) == (400, {"error": "options.seed: expected an integer in 0..2147483647"})
