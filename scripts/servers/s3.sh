#!/usr/bin/env bash
# An S3-compatible server on loopback for trying StrataSyncServers by hand: moto's S3 server
# (PyPI moto[server]) set up as the tests set it up (scripts/servers/s3-setup.py): a bucket
# "strata-shared", and with --auth an IAM key that every request must be signed with.
#
#   scripts/servers/s3.sh start [port] [--auth]   # prints the endpoint, bucket and keys to use
#   scripts/servers/s3.sh status
#   scripts/servers/s3.sh stop
#
# moto keeps everything in memory: a stop loses the bucket's contents. State (pid, port, log,
# keys) lives in ${STRATA_S3_DIR:-/tmp/strata-s3-dev}.
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
dir="${STRATA_S3_DIR:-/tmp/strata-s3-dev}"

running() { [ -f "$dir/moto.pid" ] && kill -0 "$(cat "$dir/moto.pid")" 2>/dev/null; }
show() {
    echo "endpoint: http://127.0.0.1:$(cat "$dir/port")"
    echo "bucket:   strata-shared (region us-east-1, path-style addressing)"
    python3 -c 'import json,sys; k=json.load(open(sys.argv[1])); print("key ID:   " + k["accessKeyID"]); print("secret:   " + k["secretAccessKey"])' "$dir/keys.json"
    echo "log:      $dir/moto.log"
}

case "${1:-}" in
start)
    if running; then echo "already running"; show; exit 0; fi
    if ! python3 -c "import moto.server, boto3" 2>/dev/null; then
        python3 -m pip install --quiet 'moto[server]' || python3 -m pip install --quiet --break-system-packages 'moto[server]' || {
            echo "moto[server] is not installed: python3 -m pip install 'moto[server]'" >&2; exit 1; }
    fi
    port="9000"; auth=""
    for arg in "${@:2}"; do
        case "$arg" in --auth) auth="--auth" ;; *) port="$arg" ;; esac
    done
    mkdir -p "$dir"
    echo "$port" >"$dir/port"
    nohup python3 -m moto.server -H 127.0.0.1 -p "$port" >"$dir/moto.log" 2>&1 &
    echo $! >"$dir/moto.pid"
    for _ in $(seq 100); do
        (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && break
        running || break
        sleep 0.1
    done
    if ! running; then echo "moto did not start; see $dir/moto.log" >&2; tail -5 "$dir/moto.log" >&2; exit 1; fi
    python3 "$here/s3-setup.py" "http://127.0.0.1:$port" $auth strata-shared >"$dir/keys.json"
    show
    ;;
stop)
    if running; then kill "$(cat "$dir/moto.pid")"; rm -f "$dir/moto.pid"; echo "stopped"; else echo "not running"; fi
    ;;
status)
    if running; then echo "running"; show; else echo "not running"; exit 1; fi
    ;;
*)
    echo "usage: $0 start [port] [--auth] | stop | status" >&2
    exit 2
    ;;
esac
