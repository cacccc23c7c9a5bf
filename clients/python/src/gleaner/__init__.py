"""Gleaner from Python: submit jobs to a master and follow them, over its HTTP API.

    from gleaner import Gleaner
    g = Gleaner("http://localhost:7070", token_file="client-alice.token")
    job = g.submit("primes", {"from": 0, "to": 10**8})
    job.wait(progress=True)
    print(job.result())
"""

from .client import (BadRequest, Conflict, Gleaner, GleanerError, Job, JobState, NotAllowed, NotFound, Progress,
                     Unauthorized)

__all__ = ["Gleaner", "Job", "JobState", "Progress", "GleanerError", "BadRequest", "Unauthorized", "NotAllowed",
           "NotFound", "Conflict"]
__version__ = "0.1.0"
