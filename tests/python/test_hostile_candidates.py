"""Hostile candidates against a real `drtriton serve` (CPU, Triton's interpreter; loopback only).

Each case in tests/eval/hostile/ attacks one promise of the threat model (src/eval/README.md):
forged verdict lines (item 1), the verdict cache (2), files, shell, network and secrets (3),
processes that outlive the request (4). Every case runs twice:
- on a service as deployed: the static checks reject it before any of its code runs;
- on a service whose workers skip the static checks (DRTRITON_TEST_SKIP_STATIC=1, test only):
  the audit hook and the OS sandbox must hold on their own; the header's `expect:` says how
  the case must end there.
After each: a clean rejected verdict, /health answers, no file appeared outside scratch, no
process with the case's marker runs, the test's listener got no connection, the service's
secret environment variable appears nowhere, and the cache holds no forged or passing row.
HOSTILE_DEVICE=cuda runs the suite on a GPU (scripts/gpu_check.sh).
"""
import hashlib
import json
import os
import socket
import sqlite3
import threading
import time
import uuid

import pytest

from drtriton.verifier.client import parse_header
from test_service import BIN, ROOT, Service

HOSTILE = os.path.join(ROOT, "tests", "eval", "hostile")
TASKS = os.path.join(ROOT, "tests", "eval", "candidates", "tasks")
DEVICE = os.environ.get("HOSTILE_DEVICE", "cpu")
SECRET = "drtriton-hostile-secret-" + uuid.uuid4().hex
# Cases only the OS sandbox stops (no audit event exists for what they do).
OS_ONLY = {"write_mkfifo", "write_torch_save", "setsid_daemon_unaudited"}
HONEST_HASHES = set()  # the honest candidates run after each case
CASES = sorted(name[:-3] for name in os.listdir(HOSTILE) if name.endswith(".py"))


class Listener:
    """A TCP listener on loopback that records every connection made to it."""

    def __init__(self):
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(16)
        self.sock.settimeout(0.2)
        self.port = self.sock.getsockname()[1]
        self.connections = []
        self.running = True
        self.thread = threading.Thread(target=self.accept, daemon=True)
        self.thread.start()

    def accept(self):
        while self.running:
            try:
                conn, peer = self.sock.accept()
            except OSError:
                continue
            self.connections.append(peer)
            conn.close()

    def close(self):
        self.running = False
        self.thread.join(2)
        self.sock.close()


@pytest.fixture(scope="module")
def world(tmp_path_factory):
    if not os.path.exists(BIN):
        pytest.skip(f"{BIN} is not built")
    outside = tmp_path_factory.mktemp("outside")
    listener = Listener()
    secret_env = {"HOSTILE_TEST_SECRET": SECRET}
    args = ("--workers-per-gpu", "1", "--compile-timeout", "120",
            "--run-timeout", "240")
    deployed = Service(tmp_path_factory.mktemp("deployed") / "verdicts.sqlite", *args,
                       worker=None, ready_s=300, env=secret_env, device=DEVICE)
    bare = Service(tmp_path_factory.mktemp("bare") / "verdicts.sqlite", *args, worker=None,
                   ready_s=300, env=dict(secret_env, DRTRITON_TEST_SKIP_STATIC="1"), device=DEVICE)
    yield {"outside": outside, "listener": listener, "deployed": deployed, "bare": bare}
    for service in (deployed, bare):
        service.stop()
    listener.close()


def marker_processes(marker):
    found = []
    for pid in os.listdir("/proc"):
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                if marker.encode() in f.read():
                    found.append(int(pid))
        except (OSError, ValueError):
            pass
    return found


def source_of(name, world, service, marker):
    with open(os.path.join(HOSTILE, name + ".py")) as f:
        text = f.read()
    header = parse_header(text.splitlines()[0])
    for key, value in {"__SERVICE_PORT__": str(service.port),
                       "__LISTEN_PORT__": str(world["listener"].port),
                       "__OUTSIDE__": str(world["outside"]),
                       "__CACHE__": service.cache, "__MARKER__": marker}.items():
        text = text.replace(key, value)
    with open(os.path.join(TASKS, header[0])) as f:
        task = f.read()
    return task, text + f"\n# {marker}\n", header[1]


def check_aftermath(world, service, verdict, marker):
    assert service.request("GET", "/health")[0] == 200
    assert os.listdir(world["outside"]) == [], "a file appeared outside scratch"
    deadline = time.monotonic() + 10
    while marker_processes(marker) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert marker_processes(marker) == [], "a process the candidate started survived"
    assert world["listener"].connections == [], "the candidate reached the network"
    assert SECRET not in json.dumps(verdict), "the service's environment leaked"
    with sqlite3.connect(service.cache) as db:
        rows = db.execute("SELECT key, verdict FROM verdicts").fetchall()
    assert all(key != "forged" for key, _ in rows), "the cache was written by a candidate"
    passing = [json.loads(v).get("candidate_hash") for _, v in rows if json.loads(v).get("passed")]
    assert set(passing) <= HONEST_HASHES, "a hostile candidate's verdict in the cache passed"


@pytest.mark.parametrize("name", CASES)
def test_static_checks_reject_it_first(world, name):
    service = world["deployed"]
    marker = "drtriton-hostile-" + uuid.uuid4().hex
    task, candidate, _ = source_of(name, world, service, marker)
    status, verdict = service.request("POST", "/verify", {
        "task": task, "candidate": candidate,
        "options": {"compile": False, "seed": 1, "device": DEVICE.split(":")[0]}}, timeout=300)
    assert status == 200, verdict
    assert verdict["passed"] is False and verdict["failed_stage"] == "static", verdict["reason"]
    check_aftermath(world, service, verdict, marker)


@pytest.mark.parametrize("name", CASES)
def test_the_deeper_layers_hold_without_static_checks(world, name):
    service = world["bare"]
    if name in OS_ONLY and service.sandbox != "on":
        pytest.skip(f"only the OS sandbox stops {name}, and it is {service.sandbox} here")
    marker = "drtriton-hostile-" + uuid.uuid4().hex
    task, candidate, expect = source_of(name, world, service, marker)
    status, verdict = service.request("POST", "/verify", {
        "task": task, "candidate": candidate,
        "options": {"compile": False, "seed": 1, "device": DEVICE.split(":")[0]}}, timeout=300)
    assert status == 200, verdict
    reason = verdict.get("reason") or ""
    assert verdict["passed"] is False, reason
    assert verdict["reward"]["correct"] == 0
    assert expect.outcome == "rejected"
    assert verdict["failed_stage"] == expect.stage and expect.reason.lower() in reason.lower(), \
        f"expected {expect}, got rejected at {verdict['failed_stage']}: {reason}"
    check_aftermath(world, service, verdict, marker)
    # The next (honest) candidate is still served.
    with open(os.path.join(ROOT, "tests", "eval", "candidates", "honest_relu_scale.py")) as f:
        honest = f.read() + f"\n# after {marker}\n"
    HONEST_HASHES.add(hashlib.sha256(honest.encode()).hexdigest())
    with open(os.path.join(TASKS, "relu_scale.py")) as f:
        task = f.read()
    status, after = service.request("POST", "/verify", {
        "task": task, "candidate": honest,
        "options": {"compile": False, "seed": 1, "device": DEVICE.split(":")[0]}}, timeout=300)
    assert status == 200 and after["passed"] is True, after.get("reason")
