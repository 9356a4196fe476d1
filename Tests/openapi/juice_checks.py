"""juice-server's own Schemathesis checks, for what the document cannot say about the writes.

Loaded by Tests/openapi/run through SCHEMATHESIS_HOOKS. The run uses one worker, so nothing
else changes the store between a write, the state read before it, and the retry after it.

- refused_write_changes_nothing: a write answered with anything but 200 leaves the stock and
  its seq as they were before it (all or nothing; a refusal is never half applied).
- keyed_retry_is_applied_once: a write with an Idempotency-Key, sent again at once with the same
  key and body, changes nothing more, and a 200 is repeated word for word with "dup": true.
"""

import json

import requests
import schemathesis

WRITES = {"/orders", "/voids", "/restock", "/set"}
# The stock and seq seen just before each write, by the id of its request's case.
_before = {}


def _is_write(case):
    return case.operation.method.upper() == "POST" and case.operation.path in WRITES


def _state(base_url):
    """(seq, stock) from GET /state of the server under test (`base_url`: its origin, or any URL on it)."""
    origin = "/".join(base_url.split("/", 3)[:3])
    reply = requests.get(origin + "/state", timeout=10)
    reply.raise_for_status()
    state = reply.json()
    return state["seq"], state["stock"]


@schemathesis.hook
def before_call(context, case, kwargs):
    if _is_write(case):
        _before[id(case)] = _state(case.operation.schema.get_base_url())


@schemathesis.check
def refused_write_changes_nothing(ctx, response, case):
    if not _is_write(case) or response.status_code == 200:
        return None
    before = _before.pop(id(case), None)
    if before is None:
        return None
    after = _state(response.request.url)
    if after != before:
        raise AssertionError(
            f"a write answered {response.status_code} changed the store: seq and stock were {before}, now {after}"
        )
    return None


@schemathesis.check
def keyed_retry_is_applied_once(ctx, response, case):
    if not _is_write(case) or "Idempotency-Key" not in response.request.headers:
        return None
    before_retry = _state(response.request.url)
    retry = requests.Session().send(response.request.copy(), timeout=10)
    after_retry = _state(response.request.url)
    if after_retry != before_retry:
        raise AssertionError(
            f"the same Idempotency-Key sent again changed the store: {before_retry} became {after_retry}"
        )
    if response.status_code != 200:
        return None
    if retry.status_code != 200:
        raise AssertionError(f"the retry of a write answered 200 was answered {retry.status_code}: {retry.text}")
    first = json.loads(response.content)
    again = retry.json()
    if again != {**first, "dup": True}:
        raise AssertionError(f"the retry's answer is not the first one with \"dup\": true: first {first}, retry {again}")
    return None
