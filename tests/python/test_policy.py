"""The policy interface (python/drtriton/policy.py): the compiler as a policy, and an
OpenAI-compatible endpoint, here a local stub server that answers with the compiler's own
solution, judged by the real verifier in Triton's interpreter through `drtriton convert
--policy endpoint:URL`."""
import http.server
import json
import os
import signal
import subprocess
import sys
import threading

import pytest

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
BIN = os.environ.get("DRTRITON_BIN", os.path.join(ROOT, "build", "drtriton"))
sys.path.insert(0, os.path.join(ROOT, "python"))
from drtriton import policy  # noqa: E402
from drtriton.learn.prompt import read_answer  # noqa: E402

# y = relu(x) * scale, one of the verifier's own test tasks.
with open(os.path.join(ROOT, "tests", "eval", "candidates", "tasks", "relu_scale.py")) as f:
    PROGRAM = f.read()

pytestmark = pytest.mark.skipif(not os.path.exists(BIN), reason=f"{BIN} is not built")


class Stub(http.server.BaseHTTPRequestHandler):
    """/v1/chat/completions: `choices` answers in turn, one per choice asked for (`n`)."""
    choices: list[str] = []
    requests: list[dict] = []
    status = 200
    answer = None  # a function of the request's body, instead of `choices`

    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        Stub.requests.append({"path": self.path, "body": body})
        if Stub.status != 200:
            self.send_response(Stub.status)
            self.end_headers()
            self.wfile.write(b'{"error": "bad request"}')
            return
        if Stub.answer:
            take = [Stub.answer(body)] * body.get("n", 1)
        else:
            take, Stub.choices = Stub.choices[:body.get("n", 1)], Stub.choices[body.get("n", 1):]
        reply = {"choices": [{"index": i, "message": {"role": "assistant", "content": c}}
                             for i, c in enumerate(take)]}
        data = json.dumps(reply).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args):
        pass


@pytest.fixture
def server():
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Stub)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    Stub.choices, Stub.requests, Stub.status = [], [], 200
    yield f"http://127.0.0.1:{httpd.server_address[1]}/v1"
    httpd.shutdown()


@pytest.fixture(scope="module")
def compiled():
    """The compiler policy's one answer for PROGRAM (a fenced solution)."""
    [[answer]] = policy.make_policy("compiler", BIN).complete([PROGRAM], samples=3)
    return answer


def test_compiler_policy_answers_once_with_a_fenced_solution(compiled):
    solution, why = read_answer(compiled)
    assert why == "" and "class ModelNew" in solution and "@triton.jit" in solution


def test_convert_takes_the_endpoints_verified_answer(server, compiled, tmp_path):
    (tmp_path / "program.py").write_text(PROGRAM)
    # One sample without a code block, one with two ModelNew blocks, one right answer.
    Stub.choices = ["I would fuse the relu and the scale.",
                    compiled + "\nor\n" + compiled,
                    "Here it is:\n" + compiled]
    r = subprocess.run([BIN, "convert", "program.py", "--policy", f"endpoint:{server}#tiny",
                        "--samples", "3", "--verify", "--device", "cpu", "--no-compile-timing", "-o", "out.py"],
                       capture_output=True, text=True, cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert "sample 1: no answer: no fenced" in r.stderr
    assert "sample 2: no answer: 2 blocks define class ModelNew" in r.stderr
    assert (tmp_path / "out.py").read_text() == read_answer(compiled)[0]
    [request] = Stub.requests
    assert request["path"] == "/v1/chat/completions"
    assert request["body"]["n"] == 3 and request["body"]["model"] == "tiny"
    assert "def forward(self, x)" in request["body"]["messages"][0]["content"]


def test_endpoint_asked_again_when_it_returns_fewer_choices(server, compiled):
    Stub.choices = [compiled, compiled]
    Stub.requests = []
    endpoint = policy.make_policy(f"endpoint:{server}")
    # The stub answers `n` choices at most, and has only two: ask for two, in one request.
    assert endpoint.complete([PROGRAM], samples=2) == [[compiled, compiled]]
    assert len(Stub.requests) == 1 and "model" not in Stub.requests[0]["body"]


def test_endpoint_errors_name_the_server(server, tmp_path):
    (tmp_path / "program.py").write_text(PROGRAM)

    def convert(spec):
        return subprocess.run([BIN, "convert", "program.py", "--policy", spec, "--no-verify"],
                              capture_output=True, text=True, cwd=tmp_path)

    Stub.status = 400
    r = convert(f"endpoint:{server}")
    assert r.returncode == 1 and f"{server}/chat/completions: HTTP 400" in r.stderr
    r = convert("endpoint:ftp://example")
    assert r.returncode == 1 and "must start with http://" in r.stderr
    r = convert("endpoint:")
    assert r.returncode == 2 and "expected compiler, model:CKPT or endpoint:URL" in r.stderr
    Stub.status = 200
    Stub.choices = ["no code today"] * 8
    r = convert(f"endpoint:{server}")
    assert r.returncode == 1 and "none of 8 samples held" in r.stderr


def test_bench_judges_each_programs_sampled_answers(server, compiled, tmp_path):
    """`drtriton bench --policy endpoint:...`: one request per program, every answer judged,
    the row is the fastest accepted; a results file holds one policy's rows only."""
    programs = tmp_path / "programs"
    programs.mkdir()
    for name in ("a", "b"):
        (programs / f"{name}.py").write_text(PROGRAM)
    Stub.choices = ["no code here", compiled, compiled, compiled]  # a: 1 answer, b: 2

    def bench(*args):
        return subprocess.run([BIN, "bench", str(programs), "--out", str(tmp_path / "out"),
                               "--device", "cpu", "--no-compile", "--no-kernelbench", *args],
                              capture_output=True, text=True, cwd=ROOT)

    r = bench("--policy", f"endpoint:{server}", "--samples", "2")
    assert r.returncode == 0, r.stderr
    rows = {row["id"]: row for row in map(json.loads, open(tmp_path / "out" / "results.jsonl"))}
    assert [q["body"]["n"] for q in Stub.requests] == [2, 2]  # one request per program
    assert rows["a"]["passed"] and rows["b"]["passed"], r.stderr
    assert (rows["a"]["samples"], rows["a"]["samples_passed"]) == (1, 1)  # one held an answer
    assert (rows["b"]["samples"], rows["b"]["samples_passed"]) == (2, 2)
    assert rows["a"]["policy"] == f"endpoint:{server}"
    assert "| 2 | 2 (100.0%) | 2 (100.0%) |" in r.stdout
    r = bench()  # the compiler, into the endpoint's results: refused, nothing written
    assert r.returncode == 1 and "was answered by endpoint:" in r.stderr


def test_search_asks_the_endpoint_for_every_fragment(server, tmp_path):
    """`drtriton search --policy endpoint:...`: one request per range (the fragments and the
    program), each answered here with the compiler's solution of the program in its prompt
    (or nothing, for the program itself), judged, the cover composed and judged whole."""
    program = os.path.join(ROOT, "tests", "python", "programs", "search", "linear_gelu_softmax.py")
    compiler = policy.make_policy("compiler", BIN)

    def answer(body):
        prompt = body["messages"][0]["content"]
        source = prompt.split("```python\n", 1)[1].split("\n```", 1)[0]
        if source.startswith('"""Linear, GELU'):  # the program itself: no answer, so a composition
            return "I cannot."
        return compiler.complete([source])[0][0]

    Stub.answer = staticmethod(answer)
    try:
        out, report = tmp_path / "sol.py", tmp_path / "report.json"
        r = subprocess.run([BIN, "search", program, "--policy", f"endpoint:{server}", "--samples", "1",
                            "--max-ops", "2", "--device", "cpu", "--no-compile-timing", "-o", str(out),
                            "--report", str(report)], capture_output=True, text=True, cwd=ROOT)
    finally:
        Stub.answer = None
    assert r.returncode == 0, r.stderr
    assert len(Stub.requests) == 1 + 7  # the program, and 4 + 3 fragments of 1 and 2 operators
    rep = json.loads(report.read_text())
    assert rep["policy"] == f"endpoint:{server}"
    assert rep["edges"][0]["error"] == "no sample held a ModelNew"
    assert rep["chosen"] == "composed" and rep["finalists"][0]["verdict"]["passed"]


def test_search_without_answers_fails_with_its_report(server, tmp_path):
    program = os.path.join(ROOT, "tests", "python", "programs", "search", "linear_gelu_softmax.py")
    Stub.answer = staticmethod(lambda body: "No code from me.")
    try:
        report = tmp_path / "report.json"
        r = subprocess.run([BIN, "search", program, "--policy", f"endpoint:{server}", "--samples", "1",
                            "--max-ops", "1", "--device", "cpu", "-o", str(tmp_path / "sol.py"),
                            "--report", str(report)], capture_output=True, text=True, cwd=ROOT)
    finally:
        Stub.answer = None
    assert r.returncode == 1 and "no verified candidates cover the program" in r.stderr
    assert not (tmp_path / "sol.py").exists()
    rep = json.loads(report.read_text())
    assert rep["error"] and rep["chosen"] is None and rep["cover"] == []
    assert all(e["error"] == "no sample held a ModelNew" for e in rep["edges"])


def test_bench_stopped_by_a_signal_keeps_only_what_was_judged(server, compiled, tmp_path):
    """Ctrl-C (SIGINT to the bench's process group) while the endpoint is answering the
    second program: the first program's row stays, the second is not recorded as a failure
    (its sampler died of the signal), the exit status is 130; the same command then does the
    rest."""
    programs = tmp_path / "programs"
    programs.mkdir()
    for name in ("a", "b", "c"):
        (programs / f"{name}.py").write_text(PROGRAM)
    asked, release = threading.Event(), threading.Event()

    def answer(body):
        if len(Stub.requests) == 2:  # the second program's request: hold it until the signal
            asked.set()
            release.wait(60)
        return compiled

    command = [BIN, "bench", str(programs), "--out", str(tmp_path / "out"), "--device", "cpu",
               "--no-compile", "--no-kernelbench", "--chunk", "1", "--samples", "1",
               "--policy", f"endpoint:{server}"]
    Stub.answer = staticmethod(answer)
    try:
        run = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               cwd=ROOT, start_new_session=True)
        assert asked.wait(300), "the second program was never asked for"
        os.killpg(run.pid, signal.SIGINT)
        out, err = run.communicate(timeout=300)
    finally:
        release.set()
        Stub.answer = None
    assert run.returncode == 130, err
    assert "stopped by a signal; 1 programs of this run kept" in err
    rows = [json.loads(line) for line in open(tmp_path / "out" / "results.jsonl")]
    assert [(row["id"], row["passed"]) for row in rows] == [("a", True)]
    assert "1 of 3 programs done" in out
    Stub.answer = staticmethod(lambda body: compiled)
    try:
        again = subprocess.run(command, capture_output=True, text=True, cwd=ROOT)
    finally:
        Stub.answer = None
    assert again.returncode == 0 and "1 done before, 2 to do" in again.stderr, again.stderr
    rows = [json.loads(line) for line in open(tmp_path / "out" / "results.jsonl")]
    assert [(row["id"], row["passed"]) for row in rows] == [("a", True), ("b", True), ("c", True)]
