"""The service keeps answering `/health/live` while hostile requests arrive, against the real binary over real
sockets. The review's bug: parsing deep or wide JSON and thousands of parameters on the cooperative threads starved
every other request (a liveness check waited 80 s, as long as the hostile requests ran). The machine is not quiet
(`make test` runs this lane beside the Swift suites and the web view, on two cores), so no latency is held: the
hostile requests keep arriving until ten checks have been answered meanwhile, which a starved service does not do
within the two minutes the test gives it. (The Swift suite checks each payload's refusal itself.)"""

import concurrent.futures
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


CHECKS = 10
PATIENCE_SECONDS = 120


def test_health_answers_while_hostile_requests_arrive(server):
    token = access_token(server)
    bodies = [entity_update("not-a-token", NESTED_ARRAYS), entity_update(token, NESTED_ARRAYS),
              entity_update(token, WIDE_OBJECT), MANY_PARAMETERS]
    answered = threading.Event()  # CHECKS checks answered while hostile requests kept arriving
    deadline = time.monotonic() + PATIENCE_SECONDS
    form = {"content-type": "application/x-www-form-urlencoded"}

    def send(body):
        replies = []
        with httpx.Client(timeout=PATIENCE_SECONDS) as client:
            # At least four of each, then on until the checks are answered (or the test gives up).
            while len(replies) < 4 or (not answered.is_set() and time.monotonic() < deadline):
                reply = client.post(server.url("/entity.update"), content=body, headers=form)
                replies.append((reply.status_code, reply.json().get("stat")))
        return replies

    def check():
        latencies = []
        while len(latencies) < CHECKS and time.monotonic() < deadline:
            started = time.monotonic()
            # A fresh connection each time, as a load balancer's probe makes.
            reply = server.get("/health/live", timeout=PATIENCE_SECONDS)
            assert reply.status_code == 200
            latencies.append(time.monotonic() - started)
            time.sleep(0.02)
        if len(latencies) == CHECKS:
            answered.set()
        return latencies

    with concurrent.futures.ThreadPoolExecutor(max_workers=len(bodies) + 1) as pool:
        senders = [pool.submit(send, body) for body in bodies]
        latencies = pool.submit(check).result()
        all_sent = [sender.result() for sender in senders]
    replies = [reply for sent in all_sent for reply in sent]

    # Every sender was still sending when the checks were done: it stops only once they are.
    summary = "checks answered while hostile requests kept arriving, in seconds: %s; hostile requests per sender: %s" % (
        [round(seconds, 3) for seconds in latencies], [len(sent) for sent in all_sent])
    print(summary)
    assert len(latencies) == CHECKS, summary
    assert all(len(sent) >= 4 for sent in all_sent), summary
    assert all(status < 500 and stat == "error" for status, stat in replies), replies
