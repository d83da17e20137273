#!/usr/bin/env bash
# A WebDAV server on loopback for trying StrataSyncServers by hand: nginx with the repo's
# configuration (scripts/servers/nginx-webdav.conf), the same the tests start.
#
#   scripts/servers/webdav.sh start [port]   # prints the URL, user and password to use
#   scripts/servers/webdav.sh status
#   scripts/servers/webdav.sh stop
#
# State lives in ${STRATA_WEBDAV_DIR:-/tmp/strata-webdav-dev} (files under root/dav/).
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
dir="${STRATA_WEBDAV_DIR:-/tmp/strata-webdav-dev}"
user="strata"
module=/usr/lib/nginx/modules/ngx_http_dav_ext_module.so

running() { [ -f "$dir/nginx.pid" ] && kill -0 "$(cat "$dir/nginx.pid")" 2>/dev/null; }
show() {
    echo "WebDAV:   http://127.0.0.1:$(cat "$dir/port")/dav/"
    echo "user:     $user"
    echo "password: $(cat "$dir/password")"
    echo "files:    $dir/root/dav"
}

case "${1:-}" in
start)
    if running; then echo "already running"; show; exit 0; fi
    if ! command -v nginx >/dev/null 2>&1 || [ ! -f "$module" ]; then
        bash "$here/install.sh"
    fi
    port="${2:-8080}"
    mkdir -p "$dir/root/dav" "$dir/temp"
    [ -f "$dir/password" ] || head -c 12 /dev/urandom | od -An -tx1 | tr -d ' \n' >"$dir/password"
    printf '%s:{PLAIN}%s\n' "$user" "$(cat "$dir/password")" >"$dir/htpasswd"
    echo "$port" >"$dir/port"
    userline=""
    [ "$(id -u)" -eq 0 ] && userline="user root root;"
    sed -e "s|@DAV_EXT_MODULE@|$module|" -e "s|@USER_DIRECTIVE@|$userline|" -e "s|@PREFIX@|$dir|g" \
        -e "s|@PORT@|$port|" -e "s|@ROOT@|$dir/root|" -e "s|@HTPASSWD@|$dir/htpasswd|" \
        "$here/nginx-webdav.conf" >"$dir/nginx.conf"
    nohup nginx -e "$dir/error.log" -p "$dir" -c "$dir/nginx.conf" >>"$dir/error.log" 2>&1 &
    for _ in $(seq 50); do running && break; sleep 0.1; done
    if ! running; then echo "nginx did not start; see $dir/error.log" >&2; tail -5 "$dir/error.log" >&2; exit 1; fi
    show
    ;;
stop)
    if running; then kill "$(cat "$dir/nginx.pid")"; echo "stopped"; else echo "not running"; fi
    ;;
status)
    if running; then echo "running"; show; else echo "not running"; exit 1; fi
    ;;
*)
    echo "usage: $0 start [port] | stop | status" >&2
    exit 2
    ;;
esac
