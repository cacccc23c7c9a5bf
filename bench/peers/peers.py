#!/usr/bin/python3
"""Gleaner side by side with Work Queue and Dask, and the wire's limit, in one run on loopback.

Run (from the checkout's root, after building Gleaner):

    mvn -q -DskipTests package && /usr/bin/python3 bench/peers/peers.py --json peers.json

About 5 minutes a repetition on an idle 2-core machine; --reps 1 for a first look. Needs Debian's
python3-distributed (Dask), coop-computing-tools and python3-workqueue (Work Queue), iperf3:

    apt-get install python3-distributed coop-computing-tools python3-workqueue iperf3

A peer that is missing is named and skipped; its columns read "skipped". Use /usr/bin/python3:
the peers' modules are Debian's and another python3 on the PATH does not see them.

The five workloads, the same on every system, 4 workers unless said:

  small chunks  20,000 one-unit tasks. Gleaner: one `primes` job over [0, 20000) in chunks of 1
                unit, strategy self. Work Queue: 20,000 tasks running ":" (the shell's no-op),
                submitted while q.hungry() (its back-pressure; all queued at once ran 2-3 times
                slower: the manager sums the resources of every queued task).
                Dask: client.map of a function returning its argument over 20,000 integers.
                Figure: tasks per second from the first submit to the last result.
  latency       200 one-chunk jobs in sequence. Gleaner: a `primes` job over [0, 1000) in one
                chunk, timed over a connection logged in beforehand (submit -> DONE seen) and
                over a new connection each (connect, log in, submit, DONE seen); DONE is seen by
                a status request that waits at the master for the job's end (the reply leaves
                when the job ends). Work Queue: submit one ":" task, wait for it. Dask: submit
                one future, take its result. Figure: median and 90th percentile in ms.
  inputs        200 distinct files of 1 MiB. Gleaner: one `wc` job per file, one chunk each
                (strategy self, chunk size the file's), all submitted at once over one
                connection; the master serves their folder (--serve). Work Queue: one
                `wc input.dat` task per file, the file its input, not cached. Dask: one future
                per file, given the file's bytes read by the client, counting lines and bytes.
                Figures: MiB/s from the first submit to the last result, and the CPU seconds of
                the master / the manager / the scheduler over the same span (utime + stime
                from /proc/PID/stat). Work Queue's manager is a library inside the submitting
                process, so its figure is that whole process, this script's own tasks included.
  stream        one 1 GiB file in 64 MiB chunks on 2 workers. Gleaner: one `wc` job, strategy
                self with chunks of 64 MiB (a wc unit is a byte). Work Queue: 16 `wc` tasks,
                each given its 64 MiB piece of the file (a file piece, not cached). Dask: the
                client reads each 64 MiB piece, scatters it straight to a worker (direct=True,
                hash=False: the fastest of Dask's ways tried here; giving the bytes to submit
                as in `inputs` was 10 times slower) and submits a count on it.
                Beside them, in the same repetition: iperf3's single TCP stream on loopback
                (iperf3 -c 127.0.0.1 -t 3 -J) and a plain socket copy of the same file (read
                1 MiB blocks, write a loopback socket, another thread reads and drops).
                Figure: MiB/s, and each system's ratio to iperf3.
  kill          a job of about 10 s on 4 workers, counting primes from 10^9, run whole and then
                again with one worker process (and its children) SIGKILLed at a third of the
                whole run's time. Each system sizes its job to 10 s by doubling a job until it
                takes a quarter of that (Gleaner's sieve is Java, the peers' is numpy: the same work
                would take several times longer on the peers). Work Queue and Dask cut the job
                into 40 tasks (a Work Queue task runs `python3 tasks.py primes A B`, the script
                cached on the worker: a new interpreter per task, as a command-line task is);
                Gleaner plans its own chunks (the master's default strategy, auto).
                Figure: extra seconds over the whole run, beside the floor
                (2T/3)(min(4, c)/min(3, c) - 1) for c cores: the remaining work at the speed of
                the cores still busy. With 4 CPU-bound workers on 2 cores the survivors take the
                dead one's core, so the floor is 0 and what is measured is the cost of noticing
                the loss, redoing the work it held and re-planning.

Fairness, as set up here:
  - Workers are separate processes with 1 core each: `gleaner worker --cores 1` (a JVM each,
    not niced: GLEANER_NICE=0), `work_queue_worker --cores 1` (a task takes the whole worker),
    `dask-worker --nthreads 1 --no-nanny` (one process each; no nanny, so a killed worker stays
    dead as a Gleaner or Work Queue worker does).
  - Every system is started afresh for each workload and repetition, then warmed up with an
    untimed run of the same workload (smaller where the workload is long).
  - Repetitions are interleaved: repetition 1 of every workload on every system, then
    repetition 2, ...; the order of the systems rotates from one repetition to the next.
  - Gleaner logs in with a shared secret (HMAC challenge); Work Queue and Dask run without
    authentication, as they do by default.
  - Everything listens on 127.0.0.1. Every process this script starts is ended by its process
    id (SIGTERM, then SIGKILL after 10 s), also on Ctrl-C; every wait has a time limit.

The table shows the median over repetitions of each figure and the ratios Gleaner / peer (for a
rate above 1 is better for Gleaner, for a time or CPU figure below 1 is). --json writes every
repetition, the medians, the machine and the versions.
"""
import argparse
import atexit
import datetime
import json
import os
import platform
import re
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import warnings

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
GLEANER = os.path.join(ROOT, "deploy", "bin", "gleaner")
sys.path.insert(0, HERE)
sys.dont_write_bytecode = True  # no __pycache__ in the checkout
import tasks  # noqa: E402  (the peers' task functions, shared with their workers)

MIB = 1 << 20
WORKLOADS = ["small-chunks", "latency", "inputs", "stream", "kill"]
SYSTEMS = ["gleaner", "workqueue", "dask"]
KILL_FROM = 10 ** 9
KILL_TASKS = 40


def log(msg):
    print(time.strftime("%H:%M:%S ") + msg, file=sys.stderr, flush=True)


# ---------------------------------------------------------------- processes

class Processes:
    """Every process this script starts, each in its own session, ended by its process id."""

    def __init__(self):
        self.procs = []

    def start(self, args, log_path, env=None):
        out = open(log_path, "ab")
        p = subprocess.Popen(args, stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                             env=env, start_new_session=True)
        out.close()
        self.procs.append(p)
        return p

    def end(self, p, grace=10.0):
        """SIGTERM to the process's group (it leads it: its own session), SIGKILL after `grace` s."""
        if p.poll() is None:
            try:
                os.killpg(p.pid, signal.SIGTERM)
            except ProcessLookupError:
                pass
            try:
                p.wait(timeout=grace)
            except subprocess.TimeoutExpired:
                try:
                    os.killpg(p.pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
                p.wait(timeout=grace)
        if p in self.procs:
            self.procs.remove(p)

    def end_all(self):
        for p in list(reversed(self.procs)):
            try:
                self.end(p)
            except Exception as e:  # keep ending the others; say which one resisted
                log("could not end process %d: %s" % (p.pid, e))


PROCS = Processes()


def on_signal(signum, _frame):
    PROCS.end_all()
    sys.exit(128 + signum)


def descendants(pid):
    """Process ids whose ancestry leads to pid, read from /proc."""
    parent = {}
    for d in os.listdir("/proc"):
        if d.isdigit():
            try:
                with open("/proc/%s/stat" % d) as f:
                    parent[int(d)] = int(f.read().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
    out, frontier = [], [pid]
    while frontier:
        nxt = [c for c, pp in parent.items() if pp in frontier]
        out.extend(nxt)
        frontier = nxt
    return out


def kill_tree(pid):
    """SIGKILL to a process and everything it started, as when its computer dies."""
    victims = descendants(pid) + [pid]
    for v in victims:
        try:
            os.kill(v, signal.SIGKILL)
        except ProcessLookupError:
            pass


def cpu_seconds(pid):
    """utime + stime of a process so far, in seconds (/proc/PID/stat fields 14 and 15)."""
    with open("/proc/%d/stat" % pid) as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def wait_for(predicate, seconds, what, check=None):
    """Polls predicate() every 50 ms for at most `seconds`; check() may raise to stop early."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if predicate():
            return
        if check:
            check()
        time.sleep(0.05)
    raise RuntimeError("%s: not within %d s" % (what, seconds))


def require_alive(p, log_path):
    """Raises, with the end of its log, if the process has exited."""
    if p.poll() is not None:
        raise RuntimeError("process exited (%s); its log ends:\n%s" % (p.returncode, read(log_path)[-2000:]))


def read(path):
    try:
        with open(path, errors="replace") as f:
            return f.read()
    except OSError:
        return ""


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


# ---------------------------------------------------------------- data

def make_inputs(folder, files, size):
    """`files` distinct text files of `size` bytes: 100-byte lines naming the file and the line."""
    os.makedirs(folder, exist_ok=True)
    for i in range(files):
        lines = []
        n = 0
        k = 0
        while n < size:
            line = ("file %05d line %07d " % (i, k)).ljust(99, "abcdefghij"[i % 10]) + "\n"
            lines.append(line)
            n += len(line)
            k += 1
        data = "".join(lines).encode()[:size]
        with open(os.path.join(folder, "input-%05d.dat" % i), "wb") as f:
            f.write(data)


def make_big(path, size):
    """A text file of `size` bytes in 100-byte lines."""
    block = (("stream line " * 8).ljust(99, "x") + "\n").encode() * (MIB // 100 + 1)
    block = block[:MIB]
    with open(path, "wb") as f:
        left = size
        while left > 0:
            f.write(block[:min(left, len(block))])
            left -= len(block)


def wc_file(path):
    with open(path, "rb") as f:
        return tasks.wc_bytes(f.read())


# ---------------------------------------------------------------- the wire

def iperf3_mib(seconds, workdir):
    """iperf3's single TCP stream on loopback, MiB/s received."""
    port = free_port()
    slog = os.path.join(workdir, "iperf3-server.log")
    server = PROCS.start(["iperf3", "-s", "-1", "--forceflush", "-B", "127.0.0.1", "-p", str(port)], slog)
    try:
        wait_for(lambda: "Server listening" in read(slog), 10, "iperf3 -s listening",
                 check=lambda: require_alive(server, slog))
        out = subprocess.run(["iperf3", "-c", "127.0.0.1", "-p", str(port), "-t", str(seconds), "-J"],
                             capture_output=True, timeout=seconds + 30, check=False)
        doc = json.loads(out.stdout)
        if "error" in doc:
            raise RuntimeError("iperf3 -c: " + doc["error"])
        return doc["end"]["sum_received"]["bits_per_second"] / 8 / MIB
    finally:
        PROCS.end(server)


def spawn_ms(n):
    """Median ms to start and reap `/bin/sh -c :`: what a command task pays at least to start."""
    ms = []
    for _ in range(n):
        t0 = time.monotonic()
        subprocess.run(["/bin/sh", "-c", ":"], check=True, timeout=30)
        ms.append((time.monotonic() - t0) * 1000)
    return statistics.median(ms)


def plain_copy_mib(path):
    """The file through a loopback socket: read 1 MiB blocks, send; a thread receives and drops."""
    srv = socket.socket()
    srv.bind(("127.0.0.1", 0))
    srv.listen(1)
    got = [0]

    def sink():
        conn, _ = srv.accept()
        buf = bytearray(MIB)
        with conn:
            while True:
                n = conn.recv_into(buf)
                if n == 0:
                    return
                got[0] += n

    t = threading.Thread(target=sink, daemon=True)
    t.start()
    size = os.path.getsize(path)
    t0 = time.monotonic()
    with socket.create_connection(srv.getsockname()) as c, open(path, "rb", buffering=0) as f:
        buf = bytearray(MIB)
        view = memoryview(buf)
        while True:
            n = f.readinto(buf)
            if not n:
                break
            c.sendall(view[:n])
    t.join(300)
    seconds = time.monotonic() - t0
    srv.close()
    if got[0] != size:
        raise RuntimeError("plain copy: %d of %d bytes arrived" % (got[0], size))
    return size / MIB / seconds


# ---------------------------------------------------------------- Gleaner

class Gleaner:
    """A `gleaner master` and `gleaner worker --cores 1` JVMs; the workloads run by
    `gleaner bench driver` (one JVM for all of a workload's jobs)."""
    name = "gleaner"

    def __init__(self, run_dir, serve_dir):
        self.dir = run_dir
        self.serve = serve_dir
        self.secret = os.path.join(run_dir, "secret")
        with open(self.secret, "w") as f:
            f.write("peers-bench-" + os.urandom(16).hex() + "\n")
        os.chmod(self.secret, 0o600)
        self.master = None
        self.workers = []

    @staticmethod
    def missing():
        if not os.path.exists(os.path.join(ROOT, "deploy", "target", "gleaner.jar")):
            return "deploy/target/gleaner.jar not built (mvn -q -DskipTests package)"
        if shutil.which("java") is None:
            return "java not on the PATH"
        return None

    def start(self, workers):
        mlog = os.path.join(self.dir, "master.log")
        self.master = PROCS.start([GLEANER, "master", "--port", "0", "--bind", "127.0.0.1", "--data",
                                   os.path.join(self.dir, "data"), "--secret-file", self.secret,
                                   "--serve", self.serve], mlog)
        wait_for(lambda: re.search(r"listening on port (\d+)", read(mlog)), 120, "gleaner master start",
                 check=lambda: require_alive(self.master, mlog))
        self.port = int(re.search(r"listening on port (\d+)", read(mlog)).group(1))
        env = dict(os.environ, GLEANER_NICE="0")
        for i in range(workers):
            wlog = os.path.join(self.dir, "worker-%d.log" % i)
            p = PROCS.start([GLEANER, "worker", "--master", "127.0.0.1:%d" % self.port, "--secret-file",
                             self.secret, "--id", "peer-%d" % i, "--cores", "1"], wlog, env=env)
            self.workers.append((p, wlog, "peer-%d" % i))
        for p, wlog, wid in self.workers:
            wait_for(lambda: ("worker %s connected" % wid) in read(wlog), 180, "gleaner worker %s connected" % wid,
                     check=lambda: require_alive(p, wlog))

    def stop(self):
        for p, _, _ in self.workers:
            PROCS.end(p)
        if self.master:
            PROCS.end(self.master)
        self.workers, self.master = [], None

    def driver(self, workload, *args, timeout=1800):
        cmd = [GLEANER, "bench", "driver", workload, "--master", "127.0.0.1:%d" % self.port,
               "--secret-file", self.secret, "--json"] + [str(a) for a in args]
        out = subprocess.run(cmd, capture_output=True, timeout=timeout, check=False)
        if out.returncode != 0:
            raise RuntimeError("gleaner bench driver %s exited with %d: %s%s" % (
                workload, out.returncode, out.stderr.decode(errors="replace")[-2000:],
                out.stdout.decode(errors="replace")[-500:]))
        return json.loads(out.stdout)

    def small_chunks(self, n):
        d = self.driver("small-chunks", "--units", n, "--workers", len(self.workers))
        return {"tasksPerSecond": d["chunksPerSecond"], "seconds": d["seconds"], "result": d["result"]}

    def latency(self, jobs):
        d = self.driver("latency", "--jobs", jobs)
        return {"medianMs": d["connectedMedianMillis"], "p90Ms": d["connectedP90Millis"],
                "newConnectionMedianMs": d["newConnectionMedianMillis"], "newConnectionP90Ms": d["newConnectionP90Millis"]}

    def inputs(self, folder):
        d = self.driver("inputs", "--dir", folder, "--master-pid", self.master.pid)
        return {"mibPerSecond": d["mibPerSecond"], "cpuSeconds": d["masterCpuSeconds"], "seconds": d["seconds"]}

    def stream(self, path, chunk):
        d = self.driver("stream", "--file", path, "--chunk-mib", chunk // MIB, "--workers", 2)
        return {"mibPerSecond": d["mibPerSecond"], "seconds": d["seconds"], "result": d["result"]}

    def kill(self, target):
        d = self.driver("kill", "--kill-pid", self.workers[0][0].pid, "--target-seconds", target,
                        "--from", KILL_FROM, "--workers", len(self.workers))
        return {"extraSeconds": d["extraSeconds"], "referenceSeconds": d["referenceSeconds"],
                "extraOverWhole": d["extraSeconds"] / d["referenceSeconds"],
                "floorSeconds": floor(d["referenceSeconds"], len(self.workers)), "killedAtSeconds": d["killedAtSeconds"],
                "killedWhileRunning": d["killedWhileRunning"], "units": d["units"], "strategy": d["strategy"],
                "sizing": d["sizing"]}


# ---------------------------------------------------------------- Work Queue

class BatchedPeer:
    """A peer that runs n trivial tasks at once with its _batch(n)."""

    def small_chunks(self, n):
        self._batch(min(n, 500))  # warm-up: the same shape, untimed
        t0 = time.monotonic()
        self._batch(n)
        seconds = time.monotonic() - t0
        return {"tasksPerSecond": n / seconds, "seconds": seconds}


class WorkQueue(BatchedPeer):
    """A Work Queue manager in this process (the `work_queue` module) and `work_queue_worker
    --cores 1` processes."""
    name = "workqueue"

    def __init__(self, run_dir, serve_dir):
        import work_queue
        self.wq = work_queue
        self.dir = run_dir
        self.q = None
        self.workers = []

    @staticmethod
    def missing():
        try:
            import work_queue  # noqa: F401
        except ImportError:
            return "python module work_queue not found (apt-get install python3-workqueue)"
        if shutil.which("work_queue_worker") is None:
            return "work_queue_worker not on the PATH (apt-get install coop-computing-tools)"
        return None

    def start(self, workers):
        self.q = self.wq.WorkQueue(port=0)
        port = self.q.port
        env = dict(os.environ, CATALOG_HOST="127.0.0.1")
        for i in range(workers):
            wdir = os.path.join(self.dir, "worker-%d" % i)
            os.makedirs(wdir, exist_ok=True)
            p = PROCS.start(["work_queue_worker", "--cores", "1", "--memory", "2000", "--disk", "20000",
                             "--parent-death", "-t", "3600", "-s", wdir, "127.0.0.1", str(port)],
                            os.path.join(self.dir, "worker-%d.log" % i), env=env)
            self.workers.append(p)
        deadline = time.monotonic() + 60
        while self.q.stats.workers_connected < workers:
            if time.monotonic() > deadline:
                raise RuntimeError("%d of %d Work Queue workers connected within 60 s"
                                   % (self.q.stats.workers_connected, workers))
            self.q.wait(1)

    def stop(self):
        for p in self.workers:
            PROCS.end(p)
        self.workers = []
        if self.q is not None:
            self.q._free_queue()
            self.q = None

    def _task(self, cmd):
        t = self.wq.Task(cmd)
        t.specify_cores(1)
        return t

    def _drain(self, count, seconds):
        """Waits for `count` tasks; returns them; raises on a failed task or the time limit."""
        done = []
        deadline = time.monotonic() + seconds
        while len(done) < count:
            if time.monotonic() > deadline:
                raise RuntimeError("%d of %d Work Queue tasks returned within %d s" % (len(done), count, seconds))
            t = self.q.wait(5)
            if t is None:
                continue
            if t.result != self.wq.WORK_QUEUE_RESULT_SUCCESS or t.return_status != 0:
                raise RuntimeError("task %s failed: result %s, exit %s, output %r"
                                   % (t.command, t.result_str, t.return_status, (t.output or "")[:200]))
            done.append(t)
        return done

    def _batch(self, n):
        """n ":" tasks, submitted while the queue says it is hungry (Work Queue's own back-pressure:
        with thousands queued at once its manager spends its time summing the queued tasks'
        resources, 2-3 times slower here)."""
        deadline = time.monotonic() + 1800
        submitted = done = 0
        while done < n:
            while submitted < n and self.q.hungry():
                self.q.submit(self._task(":"))
                submitted += 1
            if time.monotonic() > deadline:
                raise RuntimeError("%d of %d Work Queue tasks returned within 1800 s" % (done, n))
            t = self.q.wait(1)
            if t is None:
                continue
            if t.result != self.wq.WORK_QUEUE_RESULT_SUCCESS or t.return_status != 0:
                raise RuntimeError("task %s failed: result %s, exit %s" % (t.command, t.result_str, t.return_status))
            done += 1

    def latency(self, jobs):
        self._batch(20)
        ms = []
        for _ in range(jobs):
            t0 = time.monotonic()
            self.q.submit(self._task(":"))
            self._drain(1, 60)
            ms.append((time.monotonic() - t0) * 1000)
        return {"medianMs": statistics.median(ms), "p90Ms": p90(ms)}

    def _wc_tasks(self, specs, seconds):
        """specs: (local path, start, end or None); wc of each as a task; returns (lines, bytes) summed."""
        for path, start, end in specs:
            t = self._task("wc input.dat")
            if end is None:
                t.specify_input_file(path, "input.dat", cache=False)
            else:
                t.specify_file_piece(path, "input.dat", start, end - 1, cache=False)
            self.q.submit(t)
        lines = size = 0
        for t in self._drain(len(specs), seconds):
            parts = t.output.split()
            lines += int(parts[0])
            size += int(parts[2])
        return lines, size

    def inputs(self, folder):
        files = sorted(os.path.join(folder, f) for f in os.listdir(folder))
        self._wc_tasks([(f, 0, None) for f in files[:8]], 300)
        cpu0 = cpu_seconds(os.getpid())
        t0 = time.monotonic()
        lines, size = self._wc_tasks([(f, 0, None) for f in files], 1800)
        seconds = time.monotonic() - t0
        cpu = cpu_seconds(os.getpid()) - cpu0
        expect_wc(folder, files, lines, size)
        return {"mibPerSecond": size / MIB / seconds, "cpuSeconds": cpu, "seconds": seconds}

    def stream(self, path, chunk):
        size = os.path.getsize(path)
        pieces = [(path, a, min(size, a + chunk)) for a in range(0, size, chunk)]
        self._wc_tasks(pieces, 1800)  # warm-up: the same run, untimed
        t0 = time.monotonic()
        lines, got = self._wc_tasks(pieces, 1800)
        seconds = time.monotonic() - t0
        expect_total(path, lines, got)
        return {"mibPerSecond": size / MIB / seconds, "seconds": seconds}

    def _primes(self, lo, hi, parts, victim_after=None):
        script = os.path.join(HERE, "tasks.py")
        cuts = [lo + (hi - lo) * i // parts for i in range(parts + 1)]
        t0 = time.monotonic()
        for a, b in zip(cuts, cuts[1:]):
            t = self._task("python3 tasks.py primes %d %d" % (a, b))
            t.specify_input_file(script, "tasks.py", cache=True)
            self.q.submit(t)
        killed_at = None
        total = 0
        got = 0
        deadline = t0 + 1800
        while got < parts:
            if victim_after is not None and killed_at is None and time.monotonic() - t0 >= victim_after:
                killed_at = time.monotonic() - t0
                kill_tree(self.workers[0].pid)
            if time.monotonic() > deadline:
                raise RuntimeError("primes tasks did not end within 1800 s")
            # work_queue.wait takes whole seconds: poll with 0 in the last second before the kill
            if killed_at is None and victim_after is not None and victim_after - (time.monotonic() - t0) < 1:
                t = self.q.wait(0)
                if t is None:
                    time.sleep(0.005)
            else:
                t = self.q.wait(1)
            if t is None:
                continue
            if t.result != self.wq.WORK_QUEUE_RESULT_SUCCESS or t.return_status != 0:
                raise RuntimeError("primes task failed: %s %r" % (t.result_str, (t.output or "")[:200]))
            total += int(t.output)
            got += 1
        return total, time.monotonic() - t0, killed_at

    def kill(self, target):
        return kill_run(self._primes, target, len(self.workers))


# ---------------------------------------------------------------- Dask

class Dask(BatchedPeer):
    """A `dask-scheduler` process, `dask-worker --nthreads 1 --no-nanny` processes, and a
    distributed.Client in this process."""
    name = "dask"

    def __init__(self, run_dir, serve_dir):
        import distributed
        self.distributed = distributed
        # the inputs workload gives each future its file's bytes on purpose (as Work Queue gives
        # each task its file); Dask's advice to scatter them instead is not wanted there
        warnings.filterwarnings("ignore", message="Large object of size")
        self.dir = run_dir
        self.client = None
        self.scheduler = None
        self.workers = []

    @staticmethod
    def missing():
        try:
            import distributed  # noqa: F401
            import numpy  # noqa: F401
        except ImportError as e:
            return "python module %s not found (apt-get install python3-distributed)" % e.name
        for prog in ("dask-scheduler", "dask-worker"):
            if shutil.which(prog) is None:
                return prog + " not on the PATH (apt-get install python3-distributed)"
        return None

    def start(self, workers):
        sfile = os.path.join(self.dir, "scheduler.json")
        slog = os.path.join(self.dir, "scheduler.log")
        env = dict(os.environ, PYTHONPATH=HERE, PYTHONDONTWRITEBYTECODE="1")
        self.scheduler = PROCS.start(["dask-scheduler", "--host", "127.0.0.1", "--port", "0", "--no-dashboard",
                                      "--scheduler-file", sfile], slog, env=env)
        wait_for(lambda: os.path.exists(sfile) and read(sfile).strip().endswith("}"), 120, "dask-scheduler start",
                 check=lambda: require_alive(self.scheduler, slog))
        for i in range(workers):
            wdir = os.path.join(self.dir, "worker-%d" % i)
            p = PROCS.start(["dask-worker", "--scheduler-file", sfile, "--nthreads", "1", "--nworkers", "1",
                             "--no-nanny", "--no-dashboard", "--memory-limit", "0", "--name", "peer-%d" % i,
                             "--local-directory", wdir], os.path.join(self.dir, "worker-%d.log" % i), env=env)
            self.workers.append(p)
        self.client = self.distributed.Client(scheduler_file=sfile, timeout=60)
        self.client.wait_for_workers(workers, timeout=120)

    def stop(self):
        if self.client is not None:
            self.client.close(timeout=30)
            self.client = None
        for p in self.workers:
            PROCS.end(p)
        self.workers = []
        if self.scheduler:
            PROCS.end(self.scheduler)
            self.scheduler = None

    def _gather(self, futures, seconds):
        """The futures' results, waiting at most `seconds` for all of them."""
        self.distributed.wait(futures, timeout=seconds)
        return self.client.gather(futures)

    def _batch(self, n):
        futures = self.client.map(tasks.noop, range(n), pure=False)
        results = self._gather(futures, 1800)
        if results != list(range(n)):
            raise RuntimeError("dask returned wrong results")

    def latency(self, jobs):
        self._batch(20)
        ms = []
        for i in range(jobs):
            t0 = time.monotonic()
            if self.client.submit(tasks.noop, i, pure=False).result(timeout=60) != i:
                raise RuntimeError("dask returned a wrong result")
            ms.append((time.monotonic() - t0) * 1000)
        return {"medianMs": statistics.median(ms), "p90Ms": p90(ms)}

    def _wc(self, files):
        futures = []
        for f in files:
            with open(f, "rb") as fh:
                futures.append(self.client.submit(tasks.wc_bytes, fh.read(), pure=False))
        results = self._gather(futures, 1800)
        return sum(r[0] for r in results), sum(r[1] for r in results)

    def inputs(self, folder):
        files = sorted(os.path.join(folder, f) for f in os.listdir(folder))
        self._wc(files[:8])
        pid = self.scheduler.pid
        cpu0 = cpu_seconds(pid)
        t0 = time.monotonic()
        lines, size = self._wc(files)
        seconds = time.monotonic() - t0
        cpu = cpu_seconds(pid) - cpu0
        expect_wc(folder, files, lines, size)
        return {"mibPerSecond": size / MIB / seconds, "cpuSeconds": cpu, "seconds": seconds}

    def _stream_once(self, path, chunk):
        pieces, futures = [], []
        with open(path, "rb") as f:
            while True:
                data = f.read(chunk)
                if not data:
                    break
                # held until the counts are back: a released piece cancels the count on it
                pieces.extend(self.client.scatter([data], direct=True, hash=False))
                futures.append(self.client.submit(tasks.wc_bytes, pieces[-1], pure=False))
        results = self._gather(futures, 1800)
        del futures, pieces
        return sum(r[0] for r in results), sum(r[1] for r in results)

    def stream(self, path, chunk):
        size = os.path.getsize(path)
        self._stream_once(path, chunk)  # warm-up: the same run, untimed
        t0 = time.monotonic()
        lines, got = self._stream_once(path, chunk)
        seconds = time.monotonic() - t0
        expect_total(path, lines, got)
        return {"mibPerSecond": size / MIB / seconds, "seconds": seconds}

    def _primes(self, lo, hi, parts, victim_after=None):
        cuts = [lo + (hi - lo) * i // parts for i in range(parts + 1)]
        t0 = time.monotonic()
        futures = [self.client.submit(tasks.primes, a, b, pure=False) for a, b in zip(cuts, cuts[1:])]
        killed_at = None
        if victim_after is not None:
            time.sleep(max(0.0, victim_after - (time.monotonic() - t0)))
            killed_at = time.monotonic() - t0
            kill_tree(self.workers[0].pid)
        total = sum(self._gather(futures, 1800))
        return total, time.monotonic() - t0, killed_at

    def kill(self, target):
        return kill_run(self._primes, target, len(self.workers))


# ---------------------------------------------------------------- shared by the peers

def p90(values):
    v = sorted(values)
    return v[max(0, -(-len(v) * 9 // 10) - 1)]


def expect_wc(folder, files, lines, size):
    want_lines = want_size = 0
    for f in files:
        a, b = wc_file(f)
        want_lines += a
        want_size += b
    if (lines, size) != (want_lines, want_size):
        raise RuntimeError("counted %d lines, %d bytes in %s; wc says %d, %d" % (lines, size, folder, want_lines, want_size))


_TOTALS = {}


def expect_total(path, lines, size):
    if path not in _TOTALS:
        _TOTALS[path] = wc_file(path)
    if (lines, size) != _TOTALS[path]:
        raise RuntimeError("counted %d lines, %d bytes in %s; wc says %d, %d" % ((lines, size, path) + _TOTALS[path]))


def floor(whole, workers):
    """The least extra time losing 1 of `workers` at a third of a run of `whole` seconds can
    cost: the remaining two thirds of the work go at the speed of the cores still in use,
    min(n - 1, cores) instead of min(n, cores). With more CPU-bound workers than cores (4 on 2
    here) the survivors take the dead one's core, and the floor is 0."""
    cores = os.cpu_count() or 1
    return whole * 2 / 3 * (min(workers, cores) / min(workers - 1, cores) - 1)


def kill_run(primes, target, workers):
    """Sizes a primes job to `target` s by doubling it (at most 12 times) until it takes a quarter
    of that (as Gleaner's driver does), runs it whole, then again killing worker 0 at a third of
    the whole run's time."""
    n = 1 << 22
    primes(KILL_FROM, KILL_FROM + n, KILL_TASKS)  # untimed: the first run pays for starting up
    steps = []
    for _ in range(12):
        _, seconds, _ = primes(KILL_FROM, KILL_FROM + n, KILL_TASKS)
        steps.append([n, seconds])
        if seconds >= target / 4:
            break
        n *= 2
    n = max(KILL_TASKS * 1000, int(n / seconds * target) // 1000 * 1000)
    ref, whole, _ = primes(KILL_FROM, KILL_FROM + n, KILL_TASKS)
    got, lossy, killed_at = primes(KILL_FROM, KILL_FROM + n, KILL_TASKS, victim_after=whole / 3)
    if got != ref:
        raise RuntimeError("the run that lost a worker counted %d primes, the whole run %d" % (got, ref))
    return {"extraSeconds": lossy - whole, "referenceSeconds": whole, "extraOverWhole": (lossy - whole) / whole,
            "floorSeconds": floor(whole, workers),
            "killedAtSeconds": killed_at, "killedWhileRunning": killed_at < lossy, "units": n, "result": ref,
            "sizing": steps}


# ---------------------------------------------------------------- the run

CLASSES = {"gleaner": Gleaner, "workqueue": WorkQueue, "dask": Dask}
LABELS = {"gleaner": "Gleaner", "workqueue": "Work Queue", "dask": "Dask"}


def versions():
    def first_line(cmd):
        try:
            out = subprocess.run(cmd, capture_output=True, timeout=60, check=False)
            text = (out.stdout or out.stderr).decode(errors="replace").strip()
            return text.splitlines()[0] if text else None
        except (OSError, subprocess.TimeoutExpired):
            return None
    v = {"python": platform.python_version(), "gleaner": first_line([GLEANER, "--version"]),
         "gleanerCommit": first_line(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"]),
         "java": first_line(["java", "-version"]), "iperf3": first_line(["iperf3", "--version"]),
         "workQueue": first_line(["work_queue_worker", "--version"])}
    try:
        import distributed
        v["dask"] = distributed.__version__
    except ImportError:
        v["dask"] = None
    return v


def machine():
    model = None
    for line in read("/proc/cpuinfo").splitlines():
        if line.startswith("model name"):
            model = line.split(":", 1)[1].strip()
            break
    mem = re.search(r"MemTotal:\s+(\d+)", read("/proc/meminfo"))
    return {"nproc": os.cpu_count(), "cpu": model, "memGiB": round(int(mem.group(1)) / MIB, 1) if mem else None,
            "kernel": platform.release(), "loadAverage": read("/proc/loadavg").split()[:3]}


def one(system, workload, args, inputs_dir, big, rep_dir, serve):
    """Starts the system afresh, runs one workload on it, stops it; returns its figures. `serve`
    is the folder the workload reads (Gleaner's master serves it)."""
    run_dir = tempfile.mkdtemp(prefix="%s-%s-" % (system, workload), dir=rep_dir)
    s = CLASSES[system](run_dir, serve)
    try:
        s.start(2 if workload == "stream" else args.workers)
        if workload == "small-chunks":
            return s.small_chunks(args.tasks)
        if workload == "latency":
            return s.latency(args.jobs)
        if workload == "inputs":
            return s.inputs(inputs_dir)
        if workload == "stream":
            return s.stream(big, args.chunk_mib * MIB)
        return s.kill(args.kill_seconds)
    finally:
        s.stop()


def limits(args, big, rep_dir):
    """The wire and the disk, in this repetition."""
    out = {}
    for key, fn in (("iperf3MiBps", lambda: iperf3_mib(3, rep_dir)), ("plainCopyMiBps", lambda: plain_copy_mib(big))):
        try:
            out[key] = fn()
        except Exception as e:  # the table says why a limit is missing
            out[key] = None
            out[key + "Error"] = str(e)
            log("%s: %s" % (key, e))
    try:
        out["spawnMsMedian"] = spawn_ms(50)
    except (OSError, subprocess.SubprocessError) as e:
        out["spawnMsMedian"] = None
        log("spawn: %s" % e)
    if Gleaner.missing() is None:
        cmd = [GLEANER, "bench", "driver", "limits", "--data-dir", os.path.join(rep_dir, "limits"), "--json"]
        res = subprocess.run(cmd, capture_output=True, timeout=300, check=False)
        if res.returncode == 0:
            d = json.loads(res.stdout)
            out["fsyncMsMedian"] = d["limitFsyncMillisMedian"]
            out["sqliteCommitMsMedian"] = d["limitSqliteCommitMillisMedian"]
        else:
            log("gleaner bench driver limits: " + res.stderr.decode(errors="replace")[-500:])
    return out


def rows(cfg):
    """The table's rows: (label, workload, figure key, key of the limit shown beside it)."""
    size = "%d MiB" % (cfg["streamMiB"]) if cfg["streamMiB"] % 1024 else "%d GiB" % (cfg["streamMiB"] // 1024)
    n = cfg["workers"]
    return [
        ("small chunks (%d tasks): tasks/s" % cfg["tasks"], "small-chunks", "tasksPerSecond", None),
        ("one-chunk job, connected client: median ms", "latency", "medianMs", "sqliteCommitMsMedian"),
        ("one-chunk job, connected client: p90 ms", "latency", "p90Ms", None),
        ("one-chunk job, new connection: median ms", "latency", "newConnectionMedianMs", None),
        ("one-chunk job, new connection: p90 ms", "latency", "newConnectionP90Ms", None),
        ("%d x %d KiB inputs: MiB/s" % (cfg["files"], cfg["fileKiB"]), "inputs", "mibPerSecond", "iperf3MiBps"),
        ("  master / manager / scheduler CPU s", "inputs", "cpuSeconds", None),
        ("%s stream, %d MiB chunks, 2 workers: MiB/s" % (size, cfg["chunkMiB"]), "stream", "mibPerSecond",
         "iperf3MiBps"),
        ("  stream / iperf3", "stream", "vsIperf3", None),
        ("kill 1 of %d at T/3: extra s" % n, "kill", "extraSeconds", None),
        ("  floor (2T/3)(min(%d,c)/min(%d,c) - 1), c cores s" % (n, n - 1), "kill", "floorSeconds", None),
        ("  whole run T s", "kill", "referenceSeconds", None),
        ("  extra / T", "kill", "extraOverWhole", None),
    ]


LIMIT_ROWS = [("iperf3 single stream, loopback: MiB/s", "iperf3MiBps"),
              ("plain socket copy of the stream's file: MiB/s", "plainCopyMiBps"),
              ("fsync of 4 KiB in the data dir: median ms", "fsyncMsMedian"),
              ("SQLite commit (WAL, synchronous=FULL): median ms", "sqliteCommitMsMedian"),
              ("start a process (/bin/sh -c :): median ms", "spawnMsMedian")]


def median_of(values):
    v = [x for x in values if isinstance(x, (int, float))]
    return statistics.median(v) if v else None


def fmt(x):
    if x is None:
        return "-"
    if abs(x) >= 100:
        return "{:,.0f}".format(x)
    if abs(x) >= 10:
        return "%.1f" % x
    return "%.2f" % x


def table(doc):
    """The medians over repetitions, as text; also puts them in doc["medians"]."""
    runs, skipped = doc["runs"], doc["skipped"]
    limits_med = {k: median_of([lim.get(k) for lim in doc["limits"]]) for _, k in LIMIT_ROWS}
    doc["medians"] = {"limits": limits_med}
    head = ["figure (median of %d)" % doc["config"]["reps"], "Gleaner", "WQ", "Dask", "limit", "G/WQ", "G/Dask"]
    lines = [head]
    for label, workload, key, limit in rows(doc["config"]):
        med, cells = {}, []
        for s in SYSTEMS:
            mine = [r for r in runs if r["system"] == s and r["workload"] == workload]
            med[s] = median_of([r["figures"].get(key) for r in mine if "figures" in r])
            if s in skipped:
                cells.append("skipped")
            elif med[s] is None and any("error" in r for r in mine):
                cells.append("failed")
            else:
                cells.append(fmt(med[s]))
        doc["medians"][label.strip()] = med
        ratios = [fmt(med["gleaner"] / med[p]) if med["gleaner"] is not None and med[p] else "-"
                  for p in ("workqueue", "dask")]
        lines.append([label] + cells + [fmt(limits_med.get(limit)) if limit else ""] + ratios)
    lines.append([""] * len(head))
    for label, key in LIMIT_ROWS:
        lines.append([label, "", "", "", fmt(limits_med.get(key)), "", ""])
    widths = [max(len(r[i]) for r in lines) for i in range(len(head))]
    out = []
    for r in lines:
        out.append("  ".join(r[0].ljust(widths[0]) if i == 0 else r[i].rjust(widths[i]) for i in range(len(r))).rstrip())
        if r is head:
            out.append("-" * len(out[-1]))
    out.append("limit: beside a latency, one SQLite commit (a one-chunk job makes several; a Work Queue task starts"
               " a process); beside a MiB/s, iperf3.")
    out.append("G/WQ, G/Dask: Gleaner's figure over the peer's; above 1 is better for Gleaner in a rate, below 1 in"
               " a time or CPU figure.")
    return "\n".join(out)


def main():
    ap = argparse.ArgumentParser(description="Gleaner side by side with Work Queue and Dask on loopback.")
    ap.add_argument("--reps", type=int, default=3, help="repetitions, interleaved (default 3)")
    ap.add_argument("--workers", type=int, default=4, help="workers (the stream uses 2) (default 4)")
    ap.add_argument("--workloads", default=",".join(WORKLOADS), help="comma-separated subset of " + ",".join(WORKLOADS))
    ap.add_argument("--systems", default=",".join(SYSTEMS), help="comma-separated subset of " + ",".join(SYSTEMS))
    ap.add_argument("--tasks", type=int, default=20000, help="small chunks: tasks (default 20000)")
    ap.add_argument("--jobs", type=int, default=200, help="latency: jobs in sequence (default 200)")
    ap.add_argument("--files", type=int, default=200, help="inputs: files of 1 MiB (default 200)")
    ap.add_argument("--file-kib", type=int, default=1024, help="inputs: size of each file in KiB (default 1024)")
    ap.add_argument("--stream-mib", type=int, default=1024, help="stream: file size in MiB (default 1024)")
    ap.add_argument("--chunk-mib", type=int, default=64, help="stream: chunk size in MiB (default 64)")
    ap.add_argument("--kill-seconds", type=float, default=10, help="kill: length of the whole run (default 10)")
    ap.add_argument("--json", metavar="FILE", help="write every repetition, the medians and the setup as JSON")
    ap.add_argument("--keep", action="store_true", help="keep the working folder (logs) after the run")
    ap.add_argument("--table-from", metavar="FILE", help="only print the table of a run saved with --json")
    args = ap.parse_args()
    if args.table_from:
        with open(args.table_from) as f:
            doc = json.load(f)
        print_report(doc)
        return 0
    workloads = [w for w in args.workloads.split(",") if w]
    chosen = [s for s in args.systems.split(",") if s]
    for w in workloads:
        if w not in WORKLOADS:
            ap.error("unknown workload %r" % w)
    for s in chosen:
        if s not in SYSTEMS:
            ap.error("unknown system %r" % s)
    if args.reps < 1 or args.workers < 2:
        ap.error("--reps must be at least 1 and --workers at least 2")

    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)
    atexit.register(PROCS.end_all)

    missing = {s: (CLASSES[s].missing() if s in chosen else "not chosen (--systems)") for s in SYSTEMS}
    for s, why in missing.items():
        if why:
            log("%s: skipped: %s" % (LABELS[s], why))
    if shutil.which("iperf3") is None:
        log("iperf3: skipped: not on the PATH (apt-get install iperf3)")
    active = [s for s in SYSTEMS if missing[s] is None]

    work = tempfile.mkdtemp(prefix="gleaner-peers-")
    doc = {"date": datetime.datetime.now().astimezone().isoformat(timespec="seconds"), "machine": machine(),
           "versions": versions(), "skipped": {s: w for s, w in missing.items() if w},
           "config": {"reps": args.reps, "workers": args.workers, "workloads": workloads, "tasks": args.tasks,
                      "jobs": args.jobs, "files": args.files, "fileKiB": args.file_kib, "streamMiB": args.stream_mib,
                      "chunkMiB": args.chunk_mib, "killSeconds": args.kill_seconds, "killTasks": KILL_TASKS},
           "runs": [], "limits": []}
    try:
        inputs_dir = os.path.join(work, "inputs")
        big_dir = os.path.join(work, "stream")
        os.makedirs(big_dir)
        big = os.path.join(big_dir, "big.txt")
        log("writing %d files of %d KiB and a %d MiB file in %s ..." % (args.files, args.file_kib, args.stream_mib, work))
        make_inputs(inputs_dir, args.files, args.file_kib * 1024)
        make_big(big, args.stream_mib * MIB)
        for rep in range(1, args.reps + 1):
            rep_dir = os.path.join(work, "rep-%d" % rep)
            os.makedirs(rep_dir)
            order = active[(rep - 1) % len(active):] + active[:(rep - 1) % len(active)] if active else []
            lim = limits(args, big, rep_dir)
            lim["rep"] = rep
            doc["limits"].append(lim)
            log("rep %d: iperf3 %s MiB/s, plain copy %s MiB/s, fsync %s ms, SQLite commit %s ms, process start %s ms"
                % (rep, fmt(lim.get("iperf3MiBps")), fmt(lim.get("plainCopyMiBps")), fmt(lim.get("fsyncMsMedian")),
                   fmt(lim.get("sqliteCommitMsMedian")), fmt(lim.get("spawnMsMedian"))))
            for workload in workloads:
                for system in order:
                    serve = inputs_dir if workload == "inputs" else big_dir
                    load0 = read("/proc/loadavg").split()[0]
                    t0 = time.monotonic()
                    entry = {"rep": rep, "workload": workload, "system": system, "loadBefore": float(load0)}
                    try:
                        entry["figures"] = one(system, workload, args, inputs_dir, big, rep_dir, serve)
                        if workload == "stream" and lim.get("iperf3MiBps"):
                            entry["figures"]["vsIperf3"] = entry["figures"]["mibPerSecond"] / lim["iperf3MiBps"]
                    except Exception as e:  # recorded and shown as "failed"; the run goes on
                        entry["error"] = "%s: %s" % (type(e).__name__, e)
                        log("rep %d %s %s FAILED: %s" % (rep, workload, LABELS[system], entry["error"][-1500:]))
                    entry["wallSeconds"] = time.monotonic() - t0
                    entry["loadAfter"] = float(read("/proc/loadavg").split()[0])
                    doc["runs"].append(entry)
                    if "figures" in entry:
                        log("rep %d %-12s %-10s %s" % (rep, workload, LABELS[system], json.dumps(
                            {k: round(v, 3) if isinstance(v, float) else v for k, v in entry["figures"].items()})))
    finally:
        PROCS.end_all()
        if args.keep:
            log("working folder kept: " + work)
        else:
            shutil.rmtree(work, ignore_errors=True)
    doc["machine"]["loadAverageAtEnd"] = read("/proc/loadavg").split()[:3]
    print_report(doc)
    failed = [r for r in doc["runs"] if r.get("error")]
    for r in failed:
        print("failed: rep %d %s on %s: %s" % (r["rep"], r["workload"], LABELS[r["system"]], r["error"][:300]))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(doc, f, indent=2)
        print("\nevery repetition: " + args.json)
    return 1 if failed else 0


def print_report(doc):
    """The header (date, machine, versions, skipped peers) and the table."""
    for r in doc["runs"]:
        if r["workload"] == "kill" and "figures" in r:
            # from the run's own T, so a file saved before the floor counted cores reads the same
            r["figures"]["floorSeconds"] = floor(r["figures"]["referenceSeconds"], doc["config"]["workers"])
    text = table(doc)
    m, v = doc["machine"], doc["versions"]
    print("Gleaner side by side, %s" % doc["date"])
    print("machine: %s cores, %s, %s GiB; load average %s at the start, %s at the end"
          % (m["nproc"], m["cpu"], m["memGiB"], " ".join(m["loadAverage"]), " ".join(m["loadAverageAtEnd"])))
    print("versions: gleaner %s (%s), %s; Work Queue %s; Dask %s; %s; python %s"
          % (v["gleaner"], v["gleanerCommit"], v["java"], v["workQueue"], v["dask"], v["iperf3"], v["python"]))
    for s, why in doc["skipped"].items():
        print("%s skipped: %s" % (LABELS[s], why))
    print()
    print(text)


if __name__ == "__main__":
    sys.exit(main())
