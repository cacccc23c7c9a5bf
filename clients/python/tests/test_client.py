"""The Python client against a real master (its JVM started by the Java test that runs these, or by hand):

    GLEANER_URL=http://127.0.0.1:PORT GLEANER_TEST_TOKEN=alice:BASE64 GLEANER_TEST_OTHER_TOKEN=bob:BASE64 \
        python3 -m unittest discover -s clients/python/tests -v       # or: python3 -m pytest clients/python/tests

The master needs two workers that run primes, and tokens for two clients. Standard library only, so
that it runs in a fresh virtual environment; pytest runs it too.
"""

import os
import tempfile
import unittest

from gleaner import (BadRequest, Conflict, Gleaner, GleanerError, JobState, NotAllowed, NotFound, Progress,
                     Unauthorized)

URL = os.environ.get("GLEANER_URL")
TOKEN = os.environ.get("GLEANER_TEST_TOKEN")
OTHER = os.environ.get("GLEANER_TEST_OTHER_TOKEN")


def primes_below(n):
    sieve = bytearray([1]) * n
    sieve[0:2] = b"\x00\x00"
    for i in range(2, int(n ** 0.5) + 1):
        if sieve[i]:
            sieve[i * i::i] = bytearray(len(range(i * i, n, i)))
    return sum(sieve)


@unittest.skipUnless(URL and TOKEN and OTHER, "needs GLEANER_URL, GLEANER_TEST_TOKEN and GLEANER_TEST_OTHER_TOKEN")
class ClientTest(unittest.TestCase):
    def setUp(self):
        self.alice = Gleaner(URL, token=TOKEN)
        self.bob = Gleaner(URL, token=OTHER)

    def test_a_job_is_submitted_followed_read_and_forgotten(self):
        job = self.alice.submit("primes", {"from": 0, "to": 300000}, name="py-primes", priority=1, key="py-k1")
        again = self.alice.submit("primes", {"from": 0, "to": 300000}, name="py-primes", priority=1, key="py-k1")
        self.assertEqual(job.id, again.id, "the same key, the same job")
        state = job.wait(timeout=120)
        self.assertIs(state, JobState.DONE)
        self.assertEqual(0, state.exit_code)
        self.assertEqual("%d primes" % primes_below(300000), job.result().strip())
        p = job.progress()
        self.assertIsInstance(p, Progress)
        self.assertEqual((300000, 300000, 1.0), (p.done, p.total, p.fraction))
        self.assertEqual([], job.not_done())
        listed = [j for j in self.alice.jobs() if j["id"] == job.id]
        self.assertEqual("client:alice", listed[0]["owner"])
        self.assertEqual(1, listed[0]["priority"])
        job.forget()
        with self.assertRaises(NotFound) as e:
            job.status()
        self.assertEqual(404, e.exception.status)
        self.assertEqual("no job '%s' (GET /api/jobs lists them)" % job.id, e.exception.message)

    def test_a_cancelled_job_keeps_what_it_saved_and_says_what_is_missing(self):
        job = self.alice.submit("primes", {"from": 0, "to": 10 ** 13})
        self.assertIsNone(job.wait(timeout=0.5), "still running")
        with self.assertRaises(Conflict):
            job.result()
        with self.assertRaises(NotAllowed) as e:
            self.bob.job(job.id).cancel()
        self.assertIn("belongs to client 'alice'", e.exception.message)
        self.assertIn(job.cancel(reason="enough", grace="5s"), (JobState.CANCELLED, JobState.ENDING))
        state = job.wait(timeout=60)
        self.assertIs(state, JobState.CANCELLED)
        self.assertEqual(3, state.exit_code)
        missing = job.not_done()
        self.assertTrue(missing and missing[-1][1] == 10 ** 13, missing)
        self.assertTrue(job.result().strip().endswith("primes"))

    def test_refusals_are_python_exceptions_with_the_masters_line(self):
        with self.assertRaises(BadRequest) as e:
            self.alice.submit("primes", {"from": 0, "to": 100}, chunk_units=-1)
        self.assertIn("'chunk-units' must be a whole number >= 0", e.exception.message)
        with self.assertRaises(Unauthorized):
            Gleaner(URL, token="alice:" + "A" * 44).jobs()
        with self.assertRaises(NotFound):
            self.alice.job("job-does-not-exist").status()


class CredentialTest(unittest.TestCase):
    """Token files as `gleaner token` writes them, read without a master."""

    def token_file(self, text):
        f = tempfile.NamedTemporaryFile("w", suffix=".token", delete=False)
        f.write(text)
        f.close()
        self.addCleanup(os.unlink, f.name)
        return f.name

    def test_a_client_token_file_is_its_name_and_token(self):
        path = self.token_file("# a client token\nrole=client\nid=alice\ntoken=QUJD+/=\n")
        self.assertEqual("alice:QUJD+/=", Gleaner("http://127.0.0.1:1", token_file=path)._credential)

    def test_a_worker_token_or_no_file_is_one_line_that_says_so(self):
        path = self.token_file("role=worker\nid=w1\ntoken=QUJD\n")
        with self.assertRaises(GleanerError) as e:
            Gleaner("http://127.0.0.1:1", token_file=path)
        self.assertIn("is a worker token; the API takes a client's or an operator's", e.exception.message)
        with self.assertRaises(GleanerError) as e:
            Gleaner("http://127.0.0.1:1", token_file=path + ".missing")
        self.assertIn("cannot read the token file", e.exception.message)

    def test_a_master_not_there_is_a_gleaner_error(self):
        with self.assertRaises(GleanerError) as e:
            Gleaner("http://127.0.0.1:1", secret="s3cret\n", timeout=5).jobs()
        self.assertIn("cannot reach the master at http://127.0.0.1:1", e.exception.message)


if __name__ == "__main__":
    unittest.main()
