#!/usr/bin/env bash
# Renders a Sandbox HTML report (`--report`) in a real headless browser (Chromium, from
# Debian's `chromium` package) and checks the screenshot: its size, the white background, and
# that each stack's colour (StackColors) covers the pixels of its bars. Skipped, with a
# message, when chromium is not installed. Uses the debug Sandbox (`swift build` builds it).
#
#   scripts/report-screenshot.sh [OUT.png]    keeps the screenshot at OUT.png when given
set -euo pipefail

cd "$(dirname "$0")/.."

if ! command -v chromium > /dev/null 2>&1; then
    echo "report-screenshot: SKIPPED: chromium is not installed (apt-get install -y chromium)"
    exit 0
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
width=1000
height=1600

# Three stacks, baseline and import, few objects: seconds in a debug build.
swift run --quiet Sandbox --objects 2000 --quiet --report "$work/report.html" > "$work/table.txt"

# --no-sandbox: CI runs as root, where Chromium's sandbox refuses to start.
chromium --headless --no-sandbox --disable-gpu --hide-scrollbars --force-device-scale-factor=1 \
    --window-size="$width,$height" --screenshot="$work/report.png" "file://$work/report.html" \
    > "$work/chromium.log" 2>&1 || { cat "$work/chromium.log" >&2; exit 1; }

[ -z "${1:-}" ] || cp "$work/report.png" "$1"
python3 scripts/report-screenshot.py "$work/report.png" "$width" "$height" \
    mainContext=#d1495b asyncSaving=#e09f3e hybrid=#00798c
echo "report-screenshot: ok"
