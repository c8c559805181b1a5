#!/usr/bin/env python3
"""Send one OAuth 1.0 (private key) signed request to a StackMob Server, like the Java SDK in
OAuth1 mode: two-legged HMAC-SHA1, consumer key = public key, secret = private key, no
X-StackMob-API-Key header. Standard library only.

Usage:
  scripts/oauth1-request.py PUBLIC_KEY PRIVATE_KEY METHOD URL [JSON_BODY] [--version N]
Example:
  scripts/oauth1-request.py $PUB $PRIV GET 'http://localhost:8080/todo?done=false'
"""
import base64, hashlib, hmac, json, sys, time, urllib.parse, urllib.request, uuid


def enc(text):
    return urllib.parse.quote(text, safe="-._~")


def sign(method, url, public_key, private_key):
    parts = urllib.parse.urlsplit(url)
    base_url = f"{parts.scheme}://{parts.netloc.lower()}{parts.path or '/'}"
    oauth = {
        "oauth_consumer_key": public_key,
        "oauth_nonce": str(uuid.uuid4()),
        "oauth_signature_method": "HMAC-SHA1",
        "oauth_timestamp": str(int(time.time())),
        "oauth_version": "1.0",
    }
    # Query parameters are signed (decoded, then RFC 3986-encoded); JSON bodies are not.
    query = urllib.parse.parse_qsl(parts.query, keep_blank_values=True)
    pairs = sorted([(enc(k), enc(v)) for k, v in list(oauth.items()) + query])
    normalized = "&".join(f"{k}={v}" for k, v in pairs)
    base = "&".join([method.upper(), enc(base_url), enc(normalized)])
    key = (enc(private_key) + "&").encode()
    oauth["oauth_signature"] = base64.b64encode(hmac.new(key, base.encode(), hashlib.sha1).digest()).decode()
    return "OAuth " + ", ".join(f'{k}="{enc(v)}"' for k, v in oauth.items())


def main(argv):
    version = "0"
    if "--version" in argv:
        index = argv.index("--version")
        version = argv[index + 1]
        del argv[index:index + 2]
    if len(argv) not in (5, 6):
        sys.exit(__doc__)
    public_key, private_key, method, url = argv[1:5]
    body = argv[5].encode() if len(argv) == 6 else None
    request = urllib.request.Request(url, data=body, method=method.upper())
    request.add_header("Accept", f"application/vnd.stackmob+json; version={version}")
    request.add_header("Authorization", sign(method, url, public_key, private_key))
    if body is not None:
        request.add_header("Content-Type", "application/json")
    try:
        with urllib.request.urlopen(request) as response:
            status, text = response.status, response.read().decode()
    except urllib.error.HTTPError as error:
        status, text = error.code, error.read().decode()
    print(status, text)


if __name__ == "__main__":
    main(sys.argv)
