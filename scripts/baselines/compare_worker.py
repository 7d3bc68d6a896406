"""compare_worker.py: one solver process of the head-to-head, speaking the
line protocol of scripts/bench/bench_scene.c ('run W S', 'check T PATH',
'quit'; one answer line each)."""
import queue
import shlex
import subprocess
import threading
import time
import urllib.parse

from compare_common import HERE


class Worker:
    """One solver process speaking the line protocol."""

    @classmethod
    def unavailable(cls, key, label, reason):
        w = cls.__new__(cls)
        w.key, w.label, w.argv, w.info, w.error, w.p, w.log = key, label, [], {}, reason, None, None
        w.startup_s = float("nan")
        return w

    def __init__(self, key, label, argv, logpath, env=None):
        self.key, self.label, self.argv = key, label, argv
        self.info, self.error = {}, None
        self.log = open(logpath, "w")
        self.log.write("# " + " ".join(shlex.quote(a) for a in argv) + "\n")
        self.log.flush()
        t0 = time.perf_counter()
        try:
            self.p = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self.log,
                                      text=True, bufsize=1, env=env, cwd=HERE)
        except OSError as e:
            self.p, self.error = None, f"cannot start {argv[0]}: {e}"
            return
        self.q = queue.Queue()
        threading.Thread(target=self._pump, daemon=True).start()
        line = self._line(600)
        self.startup_s = time.perf_counter() - t0
        if line is None:
            time.sleep(0.2)
            rc = self.p.poll()
            self.error = (f"exited with status {rc} before it was ready (log: {logpath})" if rc is not None
                          else f"no answer within 600 s (log: {logpath})")
        elif line.startswith("ready"):
            self.info = parse_kv(line)
        else:
            self.error = line[6:] if line.startswith("error ") else f"unexpected '{line}'"

    def _pump(self):
        for line in self.p.stdout:
            self.q.put(line.rstrip("\n"))
        self.q.put(None)

    def _line(self, timeout):
        try:
            return self.q.get(timeout=timeout)
        except queue.Empty:
            return None

    def ask(self, cmd, timeout=3600):
        if self.error:
            raise RuntimeError(self.error)
        try:
            self.p.stdin.write(cmd + "\n")
            self.p.stdin.flush()
        except (BrokenPipeError, OSError):
            self.error = "the worker has exited"
            raise RuntimeError(self.error)
        line = self._line(timeout)
        if line is None:
            time.sleep(0.2)
            rc = self.p.poll()
            if rc is None:
                # a worker that hangs keeps its device memory and its cores: stop it now, so the
                # other solvers' timings and the cross-check go on without it
                self.p.kill()
                self.p.wait()
            self.error = (f"the worker exited with status {rc} during '{cmd}' (log: {self.log.name})"
                          if rc is not None else f"no answer to '{cmd}' within {timeout} s: stopped")
            raise RuntimeError(self.error)
        if line.startswith("error"):
            raise RuntimeError(line[6:])
        return parse_kv(line)

    def info_list(self, field):
        """A list its ready line stated (physics_differences, runtime_fixes:
        URL-quoted, ' | ' between items, 'none' for none); [] for none."""
        v = urllib.parse.unquote(self.info.get(field, "none")) if self.info else "none"
        return [] if v == "none" else v.split(" | ")

    def close(self):
        if self.p is None and self.log is None:
            return
        if self.p and self.p.poll() is None:
            try:
                self.p.stdin.write("quit\n")
                self.p.stdin.flush()
                self.p.wait(timeout=30)
            except Exception:
                self.p.kill()
                self.p.wait()
        self.log.close()


def parse_kv(line):
    out = {"_": line.split()[0]}
    for tok in line.split()[1:]:
        if "=" in tok:
            k, v = tok.split("=", 1)
            out[k] = v
    return out
