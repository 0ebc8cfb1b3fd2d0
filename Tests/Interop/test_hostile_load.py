"""The service keeps answering `/health/live` while hostile requests arrive, against the real binary over real
sockets. The review's bug: parsing deep or wide JSON and thousands of parameters on the cooperative threads starved
every other request (a liveness check waited 80 s). This suite runs one test at a time, so what the check waits on
is this test's hostile requests, not other tests' work. (The Swift suite checks each payload's refusal itself.)"""

import concurrent.futures
import statistics
import threading
import time
import uuid

import httpx

from conftest import PASSWORD, PUBLIC_CLIENT_ID

NESTED_ARRAYS = "[" + ",".join(["[" * 511 + "1" + "]" * 511] * 50) + "]"
WIDE_OBJECT = "{" + ",".join('"k%d":0' % index for index in range(100_000)) + "}"
MANY_PARAMETERS = "&".join("p%d=1" % index for index in range(20_000))


def access_token(server):
    reply = server.post("/oauth/register_native_traditional", data={
        "client_id": PUBLIC_CLIENT_ID, "flow": "webViewSignIn", "form": "registrationForm", "locale": "en-US",
        "response_type": "token", "emailAddress": "hostile-%s@example.com" % uuid.uuid4().hex[:12],
        "displayName": "Hostile", "newPassword": PASSWORD, "newPasswordConfirm": PASSWORD}).json()
    assert reply["stat"] == "ok", reply
    return reply["access_token"]


def entity_update(token, attributes):
    # JSON's punctuation means nothing in a form body; only '&', '=', '+' and '%' would, and none occurs here.
    return "access_token=%s&attributes=%s" % (token, attributes)


def test_health_answers_while_hostile_requests_arrive(server):
    token = access_token(server)
    bodies = [entity_update("not-a-token", NESTED_ARRAYS), entity_update(token, NESTED_ARRAYS),
              entity_update(token, WIDE_OBJECT), MANY_PARAMETERS]
    sending = threading.Event()
    sending.set()
    form = {"content-type": "application/x-www-form-urlencoded"}

    def send(body):
        replies = []
        with httpx.Client(timeout=120) as client:
            for _ in range(4):
                reply = client.post(server.url("/entity.update"), content=body, headers=form)
                replies.append((reply.status_code, reply.json().get("stat")))
        return replies

    def check():
        latencies = []
        while len(latencies) < 10 or sending.is_set():
            started = time.monotonic()
            # A fresh connection each time, as a load balancer's probe makes.
            reply = server.get("/health/live", timeout=120)
            latencies.append(time.monotonic() - started)
            assert reply.status_code == 200
            time.sleep(0.02)
        return latencies

    with concurrent.futures.ThreadPoolExecutor(max_workers=len(bodies) + 1) as pool:
        checking = pool.submit(check)
        senders = [pool.submit(send, body) for body in bodies]
        replies = [reply for sender in senders for reply in sender.result()]
        sending.clear()
        latencies = sorted(checking.result())

    assert all(status < 500 and stat == "error" for status, stat in replies), replies
    # Alone on this machine a check takes a few milliseconds; starved threads (the bug) held each one for as long as
    # the hostile requests ran.
    assert statistics.median(latencies) < 1.0, latencies
    assert latencies[-1] < 5.0, latencies
