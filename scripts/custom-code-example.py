#!/usr/bin/env python3
"""A custom-code webhook for StackMob Server, in the Python 3 standard library only.

Configure it as a method (docs/guide.md, "Custom code"):

    "environments": {"development": {"custom_code": {"hello": "http://127.0.0.1:9000/"}}}

then run:

    STACKMOB_URL=http://127.0.0.1:8080 STACKMOB_PUBLIC_KEY=<dev public key> \
    STACKMOB_PRIVATE_KEY=<dev private key> python3 scripts/custom-code-example.py

and call it like an SDK does:  curl -H 'X-StackMob-API-Key: <key>' 'http://127.0.0.1:8080/hello?name=Ada'

The server POSTs one JSON object per call: method, verb, params, body (raw text), headers,
user ({"schema", "id"} or null), caller, environment, api_version. Whatever this webhook answers
(status, headers, body) goes back to the client.

Calling back into the API: requests signed with OAuth 1.0 (PROTOCOL §3.3) using the environment's
private key are trusted and bypass ACLs; the signer is the one in scripts/oauth1-request.py, which
must stay beside this file. `ExampleWebhookTests` runs this file against the server.
"""
import importlib.util
import json
import os
import urllib.request
from http.server import BaseHTTPRequestHandler, HTTPServer

API = os.environ.get("STACKMOB_URL", "http://127.0.0.1:8080")
PUBLIC_KEY = os.environ.get("STACKMOB_PUBLIC_KEY", "")
PRIVATE_KEY = os.environ.get("STACKMOB_PRIVATE_KEY", "")
API_VERSION = int(os.environ.get("STACKMOB_API_VERSION", "0"))

# The OAuth 1.0 signer of scripts/oauth1-request.py (RFC 5849 HMAC-SHA1, two-legged: consumer
# key = public key, secret = private key), loaded from beside this file: one signer for both.
_spec = importlib.util.spec_from_file_location("oauth1_request", os.path.join(os.path.dirname(os.path.abspath(__file__)), "oauth1-request.py"))
oauth1 = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(oauth1)


def api(method, path, body=None):
    """Calls the StackMob API with the private key; returns (status, parsed JSON or text)."""
    url = API + path
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(url, data=data, method=method)
    request.add_header("Accept", f"application/vnd.stackmob+json; version={API_VERSION}")
    request.add_header("X-StackMob-API-Key", PUBLIC_KEY)
    request.add_header("Authorization", oauth1.sign(method, url, PUBLIC_KEY, PRIVATE_KEY))
    if data is not None:
        request.add_header("Content-Type", "application/json")
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            status, text = response.status, response.read().decode()
    except urllib.error.HTTPError as error:
        status, text = error.code, error.read().decode()
    try:
        return status, json.loads(text)
    except ValueError:
        return status, text


class Webhook(BaseHTTPRequestHandler):
    def do_POST(self):
        call = json.loads(self.rfile.read(int(self.headers.get("Content-Length", "0"))) or b"{}")
        name = call.get("params", {}).get("name", "world")
        user = call.get("user")
        # Call back into the API: count the greetings in a `greeting` schema.
        status, stored = api("POST", "/greeting", {"name": name, "by": user["id"] if user else None})
        reply = {"msg": f"hello {name}", "user": user, "verb": call.get("verb"), "stored_status": status}
        payload = json.dumps(reply).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)


if __name__ == "__main__":
    # PORT=0 takes any free port; the line below says which (the test suite reads it).
    server = HTTPServer(("127.0.0.1", int(os.environ.get("PORT", "9000"))), Webhook)
    print(f"custom-code webhook listening on 127.0.0.1:{server.server_address[1]}", flush=True)
    server.serve_forever()
