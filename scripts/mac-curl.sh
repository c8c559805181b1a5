#!/usr/bin/env bash
# Sends a request signed with OAuth 2.0 MAC the way the StackMob SDKs sign (PROTOCOL §3.2).
# Usage: ACCESS_TOKEN=… MAC_KEY=… API_KEY=… scripts/mac-curl.sh METHOD URL [curl options…]
# The signed request-uri is the path and query exactly as in URL; host and port come from URL
# (port 80/443 by scheme when URL names none).
set -euo pipefail
method=$1 url=$2
shift 2
rest=${url#*://}
hostport=${rest%%/*}
uri=/${rest#*/}
[[ $rest == */* ]] || uri=/
host=${hostport%%:*}
if [[ $hostport == *:* ]]; then port=${hostport##*:}; elif [[ $url == https:* ]]; then port=443; else port=80; fi
ts=$(date +%s)
nonce=n$((RANDOM % 10001))
mac=$(printf '%s\n%s\n%s\n%s\n%s\n%s\n\n' "$ts" "$nonce" "$method" "$uri" "$host" "$port" |
    openssl dgst -sha1 -hmac "$MAC_KEY" -binary | base64)
exec curl -s -X "$method" "$url" \
    -H "X-StackMob-API-Key: $API_KEY" \
    -H "Accept: application/vnd.stackmob+json; version=0" \
    -H "Authorization: MAC id=\"$ACCESS_TOKEN\",ts=\"$ts\",nonce=\"$nonce\",mac=\"$mac\"" \
    "$@"
