"""A client of a Gleaner master's HTTP API: submit jobs, follow them, read their results."""

import enum
import http.client
import json
import os
import ssl
import sys
import time
import urllib.error
import urllib.parse
import urllib.request

__all__ = [
    "Gleaner", "Job", "JobState", "Progress", "GleanerError", "BadRequest", "Unauthorized", "NotAllowed",
    "NotFound", "Conflict",
]


class JobState(enum.Enum):
    """A job's state, as the master says it; the ended ones carry the exit code of ``gleaner wait``."""

    QUEUED = "QUEUED"
    RUNNING = "RUNNING"
    ENDING = "ENDING"
    DONE = "DONE"
    DONE_PARTIAL = "DONE_PARTIAL"
    CANCELLED = "CANCELLED"
    FAILED = "FAILED"

    @property
    def ended(self):
        """Whether the job has ended (DONE, DONE_PARTIAL, CANCELLED or FAILED)."""
        return self in (JobState.DONE, JobState.DONE_PARTIAL, JobState.CANCELLED, JobState.FAILED)

    @property
    def exit_code(self):
        """The exit code ``gleaner wait`` gives for this state: 0 DONE, 3 CANCELLED, 5 DONE_PARTIAL, 6 FAILED."""
        return {JobState.DONE: 0, JobState.CANCELLED: 3, JobState.DONE_PARTIAL: 5, JobState.FAILED: 6}.get(self)


class GleanerError(Exception):
    """The master refused a call, or could not be reached; ``message`` is its one line, ``status`` the HTTP status."""

    def __init__(self, message, status=None):
        super().__init__(message)
        self.message = message
        self.status = status


class BadRequest(GleanerError):
    """400: a bad job (an unknown key, a missing parameter) or request."""


class Unauthorized(GleanerError):
    """401: no credential, or not a good one."""


class NotAllowed(GleanerError):
    """403: another client's job, or an address the master's web does not answer."""


class NotFound(GleanerError):
    """404: no such job."""


class Conflict(GleanerError):
    """409: the job is not in a state for it (the result of a running job, the cancel of an ended one)."""


_ERRORS = {400: BadRequest, 401: Unauthorized, 403: NotAllowed, 404: NotFound, 409: Conflict}


class Progress:
    """A job's progress: units done of the total, its state, and the master's forecast (a dict) if it has one."""

    def __init__(self, status):
        self.done = int(status.get("unitsDone") or 0)
        self.total = int(status.get("unitsTotal") or 0)
        self.state = JobState(status["state"])
        self.forecast = status.get("forecast")

    @property
    def fraction(self):
        return self.done / self.total if self.total else 0.0

    def __repr__(self):
        return "Progress(%s: %d of %d units, %.1f%%)" % (self.state.name, self.done, self.total, 100 * self.fraction)


def _read_token_file(path):
    """``NAME:BASE64`` from a token file of ``gleaner init`` or ``gleaner token`` (its id= and token= lines)."""
    fields = {}
    try:
        with open(path, encoding="utf-8") as f:
            for line in f:
                line = line.strip()
                if line and not line.startswith("#") and "=" in line:
                    k, v = line.split("=", 1)
                    fields[k.strip()] = v.strip()
    except OSError as e:
        raise GleanerError("cannot read the token file %s: %s" % (path, e.strerror or e)) from None
    if "id" not in fields or "token" not in fields:
        raise GleanerError("%s is not a token file: it has no id= and token= lines" % path)
    if fields.get("role", "client") not in ("client", "operator"):
        raise GleanerError("%s is a %s token; the API takes a client's or an operator's (gleaner token client NAME)"
                           % (path, fields["role"]))
    return "%s:%s" % (fields["id"], fields["token"])


class Gleaner:
    """A master's jobs, over its HTTP API.

    ``url``: the master (default ``$GLEANER_URL``, else ``http://localhost:7070``). The credential, one
    of: ``token``, a client's or operator's token as ``NAME:BASE64``; ``token_file``, a token file
    (default ``$GLEANER_TOKEN_FILE``); ``secret``, the shared secret. ``cafile``: the cluster CA for a
    master on TLS (``https://``). ``timeout``: seconds a call may take, long polls aside.
    """

    def __init__(self, url=None, token=None, token_file=None, secret=None, cafile=None, timeout=30):
        self.url = (url or os.environ.get("GLEANER_URL") or "http://localhost:7070").rstrip("/")
        token_file = token_file or (None if token or secret else os.environ.get("GLEANER_TOKEN_FILE"))
        given = [x for x in (token, token_file, secret) if x]
        if len(given) > 1:
            raise ValueError("give one credential: token, token_file or secret")
        if token_file:
            token = _read_token_file(token_file)
        self._credential = (token or secret or "").strip()
        if not self._credential:
            raise ValueError("no credential: give token='NAME:BASE64', token_file=PATH (or $GLEANER_TOKEN_FILE)"
                             " or secret=...")
        context = ssl.create_default_context(cafile=cafile) if cafile else None
        # never through a proxy: the credential goes to the master only
        self._opener = urllib.request.build_opener(urllib.request.ProxyHandler({}),
                                                   urllib.request.HTTPSHandler(context=context))
        self.timeout = 30 if timeout is None else timeout

    def _call(self, method, path, body=None, headers=None, timeout=None, raw=False):
        data = None if body is None else json.dumps(body).encode("utf-8")
        request = urllib.request.Request(self.url + path, data=data, method=method)
        request.add_header("Authorization", "Bearer " + self._credential)
        if data is not None:
            request.add_header("Content-Type", "application/json")
        for k, v in (headers or {}).items():
            request.add_header(k, v)
        try:
            with self._opener.open(request, timeout=self.timeout if timeout is None else timeout) as r:
                payload = r.read()
        except urllib.error.HTTPError as e:
            text = e.read().decode("utf-8", "replace")
            try:
                message = json.loads(text)["error"]
            except (ValueError, KeyError, TypeError):
                message = text.strip() or e.reason
            raise _ERRORS.get(e.code, GleanerError)(message, e.code) from None
        except urllib.error.URLError as e:
            raise GleanerError("cannot reach the master at %s: %s" % (self.url, e.reason)) from None
        except (OSError, http.client.HTTPException) as e:
            # a timeout, or the connection lost while the answer was read
            raise GleanerError("lost the master at %s: %s" % (self.url, e or type(e).__name__)) from None
        return payload.decode("utf-8") if raw else json.loads(payload.decode("utf-8"))

    def submit(self, workload, params=None, *, name=None, strategy=None, chunk_units=None, checkpoints=None,
               min_workers=None, deadline=None, replication=None, verify=None, priority=None, key=None):
        """Submits a job (the job file's fields, docs/job-files.md) and returns it.

        ``deadline``: as a job file writes it (``"62h"``, ``"Mon 08:00"``). ``key``: an idempotency key;
        the same key again returns the job the first call made.
        """
        fields = {"workload": workload, "params": params or {}, "name": name, "strategy": strategy,
                  "chunk-units": chunk_units, "checkpoints": checkpoints, "min-workers": min_workers,
                  "deadline": deadline, "replication": replication, "verify": verify, "priority": priority}
        body = {k: v for k, v in fields.items() if v is not None}
        reply = self._call("POST", "/api/jobs", body, headers={"Idempotency-Key": key} if key else None)
        return Job(self, reply["id"])

    def job(self, job_id):
        """The job of that id (its status is read when asked for)."""
        return Job(self, job_id)

    def jobs(self):
        """Every job's status (a dict each, as ``gleaner status --json`` shows a job), as this caller may read it."""
        return self._call("GET", "/api/jobs")["jobs"]


class Job:
    """A job of a master: its id, and calls that read or change it."""

    def __init__(self, client, job_id):
        self.client = client
        self.id = job_id

    def __repr__(self):
        return "Job(%r)" % self.id

    def status(self, wait=0):
        """The job's status (a dict); with ``wait`` (seconds, up to 60), once it has ended or after the wait."""
        millis = int(max(0, min(60, wait)) * 1000)
        path = "/api/jobs/%s" % urllib.parse.quote(self.id, safe="")
        if millis:
            path += "?wait=%d" % millis
        return self.client._call("GET", path, timeout=self.client.timeout + millis / 1000)

    @property
    def state(self):
        return JobState(self.status()["state"])

    def progress(self):
        """Units done of the total, and the state."""
        return Progress(self.status())

    def not_done(self):
        """The ranges a partial result lacks, as (start, end) pairs (empty for a whole one)."""
        return [tuple(r) for r in self.status().get("notDone") or []]

    def wait(self, timeout=None, progress=False):
        """Waits until the job ends and returns its state; None if ``timeout`` seconds passed first.

        ``progress``: draws a progress bar on stderr while it waits (with tqdm if installed).
        """
        deadline = None if timeout is None else time.monotonic() + timeout
        bar = _Bar(self.id) if progress else None
        try:
            while True:
                left = 20 if deadline is None else min(20, deadline - time.monotonic())
                if left <= 0:
                    return None
                status = self.status(wait=left if not progress else min(left, 1))
                state = JobState(status["state"])
                if bar:
                    bar.update(Progress(status))
                if state.ended:
                    return state
        finally:
            if bar:
                bar.close()

    def result(self):
        """The whole result of the job, which has ended (a partial one for DONE_PARTIAL and CANCELLED)."""
        return self.client._call("GET", "/api/jobs/%s/result" % urllib.parse.quote(self.id, safe=""), raw=True)

    def cancel(self, reason=None, grace=None):
        """Ends the job, keeping what is saved; ``grace`` (``"30s"``) lets the workers report what they computed."""
        body = {k: v for k, v in {"reason": reason, "grace": grace}.items() if v is not None}
        reply = self.client._call("POST", "/api/jobs/%s/cancel" % urllib.parse.quote(self.id, safe=""), body)
        return JobState(reply["state"])

    def forget(self):
        """Drops the ended job and everything stored of it."""
        self.client._call("DELETE", "/api/jobs/%s" % urllib.parse.quote(self.id, safe=""))


class _Bar:
    """A progress bar on stderr: tqdm's if it is installed, else one line redrawn."""

    def __init__(self, job_id):
        self.job_id = job_id
        try:
            import tqdm  # noqa: F401  (optional)
            self._tqdm = tqdm.tqdm(total=0, unit=" units", unit_scale=True, desc=job_id, file=sys.stderr)
        except ImportError:
            self._tqdm = None
        self._last = ""

    def update(self, p):
        if self._tqdm is not None:
            self._tqdm.total = p.total
            self._tqdm.n = p.done
            self._tqdm.set_postfix_str(p.state.name, refresh=False)
            self._tqdm.refresh()
            return
        width = 30
        filled = int(width * p.fraction)
        line = "\r%s [%s%s] %6.2f%% %s" % (self.job_id, "#" * filled, "." * (width - filled), 100 * p.fraction,
                                           p.state.name)
        if line != self._last:
            sys.stderr.write(line)
            sys.stderr.flush()
            self._last = line

    def close(self):
        if self._tqdm is not None:
            self._tqdm.close()
        elif self._last:
            sys.stderr.write("\n")
            sys.stderr.flush()
