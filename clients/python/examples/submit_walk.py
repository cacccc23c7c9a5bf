"""Runs walk() of walk.py over the indices 0..N on a Gleaner cluster, and prints the mean distance.

    GLEANER_URL=http://localhost:7070 GLEANER_TOKEN_FILE=client-alice.token python3 submit_walk.py 20000

Its workers need --allow-exec python3, and walk.py where they run it (here: by its absolute path, so
on a shared folder or at the same place on each)."""

import os
import sys

from gleaner import Gleaner, JobState

n = int(sys.argv[1]) if len(sys.argv) > 1 else 20000
script = os.path.join(os.path.dirname(os.path.abspath(__file__)), "walk.py")

g = Gleaner()  # $GLEANER_URL and $GLEANER_TOKEN_FILE
job = g.submit("exec", {"command": "python3 %s {start} {count}" % script, "from": 0, "to": n},
               name="random-walks", checkpoints=4)
print("submitted", job.id, file=sys.stderr)
state = job.wait(progress=True)
if state is not JobState.DONE:
    sys.exit("%s ended %s: %s" % (job.id, state.name, job.status()["message"]))
distances = [int(line.split()[1]) for line in job.result().splitlines()]
assert len(distances) == n, "one line per index"
print("%d walks, mean distance %.2f" % (n, sum(distances) / n))
