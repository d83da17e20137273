#!/usr/bin/env bash
# Renders a Sandbox HTML report (`--report`) in a real headless browser (Chromium, from
# Debian's `chromium` package) and checks the screenshot: its size, the white background, and
# that each stack's colour (StackColors) covers the pixels of its bars; then the page's layout
# at that width and in a narrow window (no table cut off: see below). Skipped, with a
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

# The layout, measured by the browser: a copy of the page with a script that writes into the
# title how many tables are wider than their box (they scroll sideways, named by the heading
# above them) and whether the page itself is wider than the window. At $width px the "All
# runs" table must fit; in a narrow window (500 px, the narrowest Chromium draws) tables may
# scroll in their box, but the page must not be wider than the window (nothing cut off).
sed 's|</body>|<script>const boxes = [...document.querySelectorAll(".wide")]; document.title = "layout boxes=" + boxes.length + " scrolled=" + boxes.filter(b => b.scrollWidth > b.clientWidth + 1).map(b => (b.previousElementSibling \|\| {}).textContent).join(";") + " page=" + document.documentElement.scrollWidth + "/" + window.innerWidth;</script></body>|' \
    "$work/report.html" > "$work/probe.html"
layout() {
    chromium --headless --no-sandbox --disable-gpu --hide-scrollbars --force-device-scale-factor=1 \
        --window-size="$1,$height" --dump-dom "file://$work/probe.html" 2> "$work/chromium.log" \
        | grep -o '<title>layout[^<]*</title>' | sed 's|<title>||; s|</title>||' \
        || { cat "$work/chromium.log" >&2; echo "report-screenshot: no layout from chromium at $1 px" >&2; exit 1; }
}
status=0
wide=$(layout "$width")
narrow=$(layout 500)
echo "report-screenshot: at $width px: $wide"
echo "report-screenshot: at 500 px: $narrow"
case "$wide" in
    *"boxes=0 "*) echo "report-screenshot: the page has no table boxes" >&2; status=1 ;;
esac
case "$wide" in
    *scrolled=*"All runs"*) echo "report-screenshot: the All runs table does not fit $width px" >&2; status=1 ;;
esac
for line in "$wide" "$narrow"; do
    page=${line##* page=}
    if [ "${page%/*}" -gt "${page#*/}" ]; then
        echo "report-screenshot: the page is wider than the window ($page px): something is cut off" >&2
        status=1
    fi
done
[ "$status" = 0 ] || exit 1
echo "report-screenshot: ok"
