#!/usr/bin/env bash
# Installs what the real-server tests need: nginx with its WebDAV modules (Debian/Ubuntu).
# Runs apt-get only as root or with passwordless sudo; says what to run otherwise.
set -euo pipefail

module=/usr/lib/nginx/modules/ngx_http_dav_ext_module.so
if command -v nginx >/dev/null 2>&1 && [ -f "$module" ]; then
    exit 0
fi

if [ "$(id -u)" -eq 0 ]; then
    SUDO=""
elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
    SUDO="sudo -n"
else
    echo "nginx with WebDAV is missing; install it with:" >&2
    echo "    sudo apt-get install -y nginx-light libnginx-mod-http-dav-ext" >&2
    exit 1
fi
if ! command -v apt-get >/dev/null 2>&1; then
    echo "no apt-get here: install nginx and its dav-ext module (ngx_http_dav_ext_module) by hand" >&2
    exit 1
fi

export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get install -y nginx-light libnginx-mod-http-dav-ext \
    || { $SUDO apt-get update && $SUDO apt-get install -y nginx-light libnginx-mod-http-dav-ext; } \
    || { $SUDO apt-get install -y nginx libnginx-mod-http-dav-ext; }
