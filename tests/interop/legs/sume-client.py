"""Drives the official Sume Open API client (PyPI sume-client 0.1.1, unchanged) against the
reference job server (`longcall serve-jobs`). Run by legs/sume-client.mjs.

    python sume-client.py --base-url http://127.0.0.1:PORT

Prints one JSON object per scenario on stdout: {"scenario", "result": "pass"|"fail", "detail",
"figures": {...}}. Only the server's debug routes (/_script, /_counters) are called directly,
with httpx; every Open API call goes through the client.
"""

import argparse
import json
import sys
import time
import traceback

import httpx
import sume_client
from sume_client import SumeClientError, SyncClient

TIMEOUT_S = 10.0


def now_ms():
    return int(time.time() * 1000)


class Leg:
    def __init__(self, base_url):
        self.base_url = base_url.rstrip('/')
        self.debug = httpx.Client(base_url=self.base_url, timeout=TIMEOUT_S)
        self.failed = 0

    def client(self, key):
        return SyncClient(base_url=self.base_url, api_key=key, timeout=TIMEOUT_S)

    def counters(self):
        return self.debug.get('/_counters').json()

    def script(self, key, answers):
        r = self.debug.post('/_script', json={'answers': answers},
                            headers={'Authorization': f'Bearer {key}'})
        r.raise_for_status()

    def run(self, name, budget_s, fn):
        t0 = time.monotonic()
        before = self.counters()
        try:
            detail, figures = fn()
            after = self.counters()
            figures = dict(figures or {})
            figures['calls'] = after['requests'] - before['requests']
            figures['polls'] = after['polls'] - before['polls']
            elapsed = time.monotonic() - t0
            if elapsed > budget_s:
                raise AssertionError(f'took {elapsed:.1f} s, over its {budget_s} s budget')
            result = 'pass'
        except Exception as e:  # noqa: BLE001 - every failure is reported, not raised
            traceback.print_exc(file=sys.stderr)
            detail, figures, result = f'{type(e).__name__}: {e}', {}, 'fail'
            self.failed += 1
        figures['ms'] = int((time.monotonic() - t0) * 1000)
        print(json.dumps({'scenario': name, 'result': result, 'detail': detail, 'figures': figures}),
              flush=True)

    def settled_after(self, job_id, returned_ms):
        """How long after the job's terminal status (server clock) the call returned."""
        job = self.counters()['jobs'][job_id]
        return returned_ms - job['terminal_at_ms']


def check(cond, msg):
    if not cond:
        raise AssertionError(msg)


def expect_error(fn, status, code):
    try:
        fn()
    except SumeClientError as e:
        check(e.status_code == status and e.code == code,
              f'expected {status} {code}, got {e.status_code} {e.code}')
        return e
    raise AssertionError(f'expected SumeClientError {status} {code}, got no error')


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--base-url', required=True)
    args = ap.parse_args()
    leg = Leg(args.base_url)
    ids = {}

    def subscribe_completed():
        c = leg.client('key-alice')
        seen = []
        data = c.subscribe('demo-image', {'prompt': 'a lighthouse at dusk'},
                           on_enqueue=lambda rid: seen.append(rid))
        returned = now_ms()
        check(len(seen) == 1, f'on_enqueue ids {seen}')
        url = data['result']['artifacts'][0]['url']
        check(url.startswith('https://'), f'artifact url {url}')
        ids['completed'] = seen[0]
        after = leg.settled_after(seen[0], returned)
        return f'completed, artifact {url}', {'settled_after_terminal_ms': after}

    def cancel_while_queued():
        c = leg.client('key-queued')
        ctl = c.submit('demo-image', {'prompt': 'a harbour, never drawn'})
        credits_before = leg.counters()['credits']['key-queued']
        ctl.cancel()
        status = ctl.status()
        check(isinstance(status, sume_client.Cancelled), f'status {status}')
        data = ctl.get()  # a canceled job: the client returns the status data
        check(data['sume_status'] == 'canceled', f'data {data}')
        credits = leg.counters()['credits']['key-queued']
        check(credits == credits_before + 1, f'credits {credits_before} -> {credits}')
        return f'canceled while queued, refunded ({credits_before} -> {credits} credits)', {}

    def cancel_after_start():
        c = leg.client('key-alice')
        ctl = c.submit('demo-image', {'prompt': 'a storm over the pier'})
        deadline = time.monotonic() + 5
        while not isinstance(ctl.status(), sume_client.InProgress):
            check(time.monotonic() < deadline, 'generation never started')
            time.sleep(0.1)
        e = expect_error(ctl.cancel, 409, 'job_generation_already_started')
        check(e.request_id and e.request_id.startswith('req_'), f'request_id {e.request_id}')
        data = ctl.get()
        returned = now_ms()
        check(data['result']['artifacts'][0]['url'], f'result {data}')
        return (f'409 job_generation_already_started (request {e.request_id}), then completed',
                {'settled_after_terminal_ms': leg.settled_after(ctl.request_id, returned)})

    def cancel_completed():
        c = leg.client('key-alice')
        expect_error(lambda: c.cancel(ids['completed']), 409, 'job_not_cancelable')
        return '409 job_not_cancelable', {}

    def another_keys_job():
        bob = leg.client('key-bob')
        theirs = expect_error(lambda: bob.status(ids['completed']), 404, 'not_found')
        unknown = expect_error(lambda: bob.status('job_does_not_exist'), 404, 'not_found')
        check(str(theirs) == str(unknown), f'messages differ: {theirs} / {unknown}')
        expect_error(lambda: bob.cancel(ids['completed']), 404, 'not_found')
        return '404 not_found, identical to an unknown id (status and cancel)', {}

    def retried_429_and_503():
        c = leg.client('key-retry')
        warm = c.submit('demo-image', {'prompt': 'warm the model kind cache'})
        warm.cancel()
        before = leg.counters()
        leg.script('key-retry', [{'status': 503}, {'status': 429, 'retry_after_s': 1}])
        t0 = time.monotonic()
        ctl = c.submit('demo-image', {'prompt': 'a quay, after two refusals'})
        waited = time.monotonic() - t0
        after = leg.counters()
        check(after['scripted'] - before['scripted'] == 2, 'both scripted answers were used')
        check(after['submits'] - before['submits'] == 3, 'three tries of one submit')
        check(after['jobs_created'] - before['jobs_created'] == 1, 'one job')
        check(waited >= 1.0, f'Retry-After 1 s honoured (waited {waited:.2f} s)')
        data = ctl.get()
        returned = now_ms()
        check(data['result']['artifacts'][0]['url'], f'result {data}')
        return (f'503 then 429 (Retry-After 1) retried with the same Idempotency-Key: one job, '
                f'{waited:.2f} s of retries',
                {'settled_after_terminal_ms': leg.settled_after(ctl.request_id, returned)})

    def retry_limits():
        c = leg.client('key-retry')
        leg.script('key-retry', [{'status': 503, 'retryable': False}])
        expect_error(lambda: c.status(ids.get('completed', 'x')), 503, 'service_unavailable')
        before = leg.counters()['scripted']
        leg.script('key-retry', [{'status': 503}] * 3)
        expect_error(lambda: c.status('job_any'), 503, 'service_unavailable')
        tries = leg.counters()['scripted'] - before
        check(tries == 3, f'{tries} tries')
        return 'retryable:false not retried; a 503 is tried 3 times in all (2 retries)', {}

    def nsfw():
        c = leg.client('key-alice')
        got = []
        data = c.subscribe('demo-nsfw', {'prompt': 'refused'}, on_enqueue=got.append)
        returned = now_ms()
        check(data['sume_status'] == 'nsfw', f'data {data}')
        check(isinstance(c.status(got[0]), sume_client.NSFW), 'status NSFW')
        rej = []
        data2 = c.subscribe('demo-rejected', {'prompt': 'refused too'}, on_enqueue=rej.append)
        check(data2['sume_status'] == 'failed', f'data {data2}')
        check(data2['job']['error']['public_reason'] == 'content_policy_rejected', f'{data2}')
        check(isinstance(c.status(rej[0]), sume_client.NSFW), 'failed+content_policy_rejected is NSFW')
        return ('nsfw, and failed + content_policy_rejected, both NSFW to the client',
                {'settled_after_terminal_ms': leg.settled_after(got[0], returned)})

    leg.run('subscribe() to a completed result with an artifact URL', 15, subscribe_completed)
    leg.run('submit() then cancel() while queued: canceled, refunded', 10, cancel_while_queued)
    leg.run('cancel() after generation started: 409, then completed', 15, cancel_after_start)
    leg.run('cancel() of a completed job: job_not_cancelable', 5, cancel_completed)
    leg.run("another key's job id: 404 not_found", 5, another_keys_job)
    leg.run('429 with Retry-After and 503, retried by the client', 15, retried_429_and_503)
    leg.run('retryable:false and the retry limit', 10, retry_limits)
    leg.run('nsfw job', 20, nsfw)
    return 1 if leg.failed else 0


if __name__ == '__main__':
    sys.exit(main())
