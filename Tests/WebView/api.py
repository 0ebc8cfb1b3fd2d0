"""Plain HTTP calls to the service, as an app backend would make them."""

import json
import urllib.error
import urllib.parse
import urllib.request
import uuid


def post(base, path, fields):
    request = urllib.request.Request(
        base + path,
        data=urllib.parse.urlencode(fields).encode(),
        headers={"Content-Type": "application/x-www-form-urlencoded"},
        method="POST",
    )
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read())


def get(base, path):
    try:
        with urllib.request.urlopen(base + path, timeout=10) as response:
            return response.status, dict(response.headers), response.read().decode()
    except urllib.error.HTTPError as error:
        return error.code, dict(error.headers), error.read().decode()


def new_email():
    return f"webview-{uuid.uuid4().hex[:10]}@example.com"
