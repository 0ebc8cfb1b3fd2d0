"""Host → page commands (docs/bridge-protocol.md) evaluated the way a native host evaluates them: the bare
expression, no wrapper. Each must come back without an error and as a plain value: WKWebView's evaluateJavaScript
reports a Promise (or another object it cannot convert) as an error although the call worked."""

import json

PLAIN = ("boolean", "string", "number", "null", "undefined")


def command(host, expression):
    """(type, value) of a host command's result; fails unless it is a plain value."""
    kind, value = host.command(expression)
    assert kind in PLAIN, "%s returned a %s (%r), not a plain value" % (expression, kind, value)
    return kind, value


def call(name, *arguments):
    return "janrain.capture.ui.%s(%s)" % (name, ", ".join(json.dumps(argument) for argument in arguments))


def test_every_host_command_returns_a_plain_value_and_keeps_its_behaviour(server, host):
    email, registered = server.register()
    token = registered["access_token"]
    host.load(server.page("webViewSignIn"))
    host.wait_for_event("onCaptureRenderComplete")

    assert command(host, call("setRefreshSecret", "host-chosen secret")) == ("boolean", True)
    assert command(host, call("setRefreshSecret", "")) == ("boolean", False)
    assert command(host, "janrain.capture.ui.setRefreshSecret(42)") == ("boolean", False)

    # Nothing asked the host for a passkey: its answer is not taken.
    assert command(host, "janrain.capture.ui.completePasskey(null)") == ("boolean", False)
    assert command(host, call("completePasskey", '{"id": "AA"}')) == ("boolean", False)

    assert command(host, call("renderScreen", "traditionalRegistration")) == ("boolean", True)
    host.wait_for_screen("traditionalRegistration")
    assert command(host, call("renderScreen", "signIn")) == ("boolean", True)
    host.wait_for_screen("signIn")

    # createCaptureSession answers at once; the check with the service and its events follow.
    queue_mark, message_mark = host.mark()
    assert command(host, call("createCaptureSession", token)) == ("boolean", True)
    found = host.wait_for_event("onCaptureSessionFound", after=queue_mark).result
    created = host.wait_for_event("onCaptureSessionCreated", after=queue_mark).result
    assert found["userData"]["email"] == email and created["accessToken"] == token
    assert host.wait_for_event("onCaptureSessionCreated", "message", after=message_mark).result == created
    host.wait_for_screen("signedIn")
    assert command(host, "janrain.capture.ui.hasActiveSession()") == ("boolean", True)
    assert command(host, call("createCaptureSession", "")) == ("boolean", False)

    # The host hands over a token with its lifetime (as after a refresh): the events carry it.
    queue_mark, _ = host.mark()
    assert command(host, call("createCaptureSession", token, 1800)) == ("boolean", True)
    assert host.wait_for_event("onCaptureSessionCreated", after=queue_mark).result["expiresIn"] == 1800

    queue_mark, _ = host.mark()
    assert command(host, "janrain.capture.ui.endCaptureSession()") == ("boolean", True)
    host.wait_for_event("onCaptureSessionEnded", after=queue_mark)
    host.wait_for(lambda: server.post("/entity", {"access_token": token})[1].get("stat") == "error", 10,
                  "the token to be revoked")
    assert command(host, "janrain.capture.ui.hasActiveSession()") == ("boolean", False)
    assert command(host, "janrain.capture.ui.endCaptureSession()") == ("boolean", False), "nothing left to end"

    # A dead token is taken, checked, and refused through the events.
    queue_mark, _ = host.mark()
    assert command(host, call("createCaptureSession", token)) == ("boolean", True)
    host.wait_for_event("onCaptureInvalidToken", after=queue_mark)
    host.wait_for_event("onCaptureSessionEnded", after=queue_mark)
    host.settle()
    assert host.drain_errors == []
