"""`drtriton serve` as a child process, for tests and benchmarks that judge many candidates
in one batch: starts it on a free port, posts JSON, stops it; or connects to one running elsewhere.

    with Service(binary, "--device", "cpu") as service:
        verdicts = service.post("/verify_batch", {"items": items})["verdicts"]
"""
import http.client
import json
import select
import subprocess


class Service:
    @classmethod
    def connect(cls, url):
        """A service already running at http://HOST:PORT (started elsewhere; never stopped)."""
        host, _, port = url.removeprefix("http://").rstrip("/").partition(":")
        if not port.isdigit():
            raise ValueError(f"service URL {url!r}: expected http://HOST:PORT")
        service = cls.__new__(cls)
        service.proc, service.host, service.port = None, host, int(port)
        return service

    def __init__(self, binary, *args, cwd=None, ready_s=300):
        self.proc = subprocess.Popen([binary, "serve", "--port", "0", *args], cwd=cwd,
                                     stdout=subprocess.PIPE, text=True)
        ready, _, _ = select.select([self.proc.stdout], [], [], ready_s)
        line = self.proc.stdout.readline() if ready else ""
        if "listening on http://127.0.0.1:" not in line:
            self.close()
            raise RuntimeError(f"drtriton serve did not start: {line!r}")
        self.host, self.port = "127.0.0.1", int(line.split("http://127.0.0.1:")[1].split()[0])

    def post(self, path, body, timeout=3600):
        conn = http.client.HTTPConnection(self.host, self.port, timeout=timeout)
        try:
            conn.request("POST", path, body=json.dumps(body),
                         headers={"Content-Type": "application/json"})
            response = conn.getresponse()
            data = json.loads(response.read())
        finally:
            conn.close()
        if response.status != 200:
            raise RuntimeError(f"{path}: HTTP {response.status}: {data}")
        return data

    def close(self):
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            self.proc.wait(timeout=60)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False


def judge_once(items, judge):
    """judge(unique_items) -> their verdicts, for `items` in which each distinct item (task,
    candidate and options) is judged once and its verdict given to every copy: sampled
    answers repeat (in an RL run on the H200, 128 completions at difficulty 1, 32 a step,
    held 38 distinct answers)."""
    first, unique = {}, []
    keys = [json.dumps(item, sort_keys=True) for item in items]
    for key, item in zip(keys, items):
        if key not in first:
            first[key] = len(unique)
            unique.append(item)
    verdicts = judge(unique)
    return [verdicts[first[key]] for key in keys]
