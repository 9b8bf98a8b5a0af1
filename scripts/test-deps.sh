#!/usr/bin/env bash
# Installs the Debian packages the tests drive when they are missing: chromium (browser tests
# through playwright-core; never a downloaded browser), librsvg2-bin and zbar-tools (QR codes are
# rasterised by rsvg-convert and decoded by zbarimg), postgresql (the tests start throwaway
# clusters of their own with its initdb and pg_ctl), haproxy (the multi-node tests put it in
# front of several nodes), openssl (the webhook and nginx tests make self-signed certificates),
# caddy and nginx-light (test/proxies/ runs the proxy configurations of docs/operations.md; the
# tests start their own processes, never the system services). Used by the README's test command
# and by .ci/run. Needs root or sudo only when something is missing.
set -euo pipefail
missing=()
command -v chromium >/dev/null 2>&1 || missing+=(chromium)
command -v rsvg-convert >/dev/null 2>&1 || missing+=(librsvg2-bin)
command -v zbarimg >/dev/null 2>&1 || missing+=(zbar-tools)
compgen -G '/usr/lib/postgresql/*/bin/initdb' >/dev/null || missing+=(postgresql)
# /usr/sbin is not on every user's PATH.
command -v haproxy >/dev/null 2>&1 || [ -x /usr/sbin/haproxy ] || missing+=(haproxy)
command -v openssl >/dev/null 2>&1 || missing+=(openssl)
command -v caddy >/dev/null 2>&1 || missing+=(caddy)
command -v nginx >/dev/null 2>&1 || [ -x /usr/sbin/nginx ] || missing+=(nginx-light)
[ ${#missing[@]} -eq 0 ] && exit 0
as_root=()
[ "$(id -u)" -eq 0 ] || as_root=(sudo)
echo "== apt-get install ${missing[*]}"
# The caddy and nginx packages start their system services when installed: where nothing
# forbids it already (a container's policy-rc.d), forbid it for this install.
policy=/usr/sbin/policy-rc.d
if [ ! -e "$policy" ]; then
  printf '#!/bin/sh\nexit 101\n' | "${as_root[@]}" tee "$policy" >/dev/null
  "${as_root[@]}" chmod 755 "$policy"
  trap '"${as_root[@]}" rm -f "$policy"' EXIT
fi
"${as_root[@]}" apt-get update -qq
DEBIAN_FRONTEND=noninteractive "${as_root[@]}" apt-get install -y -qq "${missing[@]}" >/dev/null
