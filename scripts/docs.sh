#!/usr/bin/env bash
# Builds the DocC documentation of the five library modules (Strata, StrataStacks,
# StrataFetchedResults, StrataSync, StrataSyncServers) with warnings treated as errors: a broken ``symbol`` or
# <doc:article> link fails the build. Before building it checks that the Sandbox tables of
# docs/ are what their stored runs give (scripts/docs-tables.py --check) and that the
# catalogs' articles are what docs/ gives (scripts/docs-articles.sh --check); after, that
# every public top-level symbol is in a Topics group of its module's landing page.
#
#   scripts/docs.sh          check, build, print where the archive is
#   scripts/docs.sh --open   the same, then serve the archive on http://localhost:8000
#
# The result is one combined archive, .build/plugins/Swift-DocC/outputs/Strata.doccarchive,
# with the four modules side by side (their articles link to each other's pages).
set -euo pipefail

cd "$(dirname "$0")/.."

python3 scripts/docs-tables.py --check
scripts/docs-articles.sh --check

modules=(Strata StrataStacks StrataFetchedResults StrataSync StrataSyncServers)
targets=()
for module in "${modules[@]}"; do
    targets+=(--target "$module")
done

swift package generate-documentation "${targets[@]}" \
    --enable-experimental-combined-documentation \
    --warnings-as-errors

archive=.build/plugins/Swift-DocC/outputs/Strata.doccarchive

# DocC puts a public symbol that no Topics group names into a generated group of the module's
# page ("generated": true in the render JSON). Every top-level symbol is curated by hand, so a
# generated group means a new public symbol that the landing page does not list yet.
status=0
for module in "${modules[@]}"; do
    page=$archive/data/documentation/$(echo "$module" | tr '[:upper:]' '[:lower:]').json
    uncurated=$(perl -0777 -ne '
        while (/\{[^{}]*"generated"\s*:\s*true[^{}]*\}/g) {
            my $group = $&;
            $group =~ s{\\/}{/}g;   # the render JSON writes "\/" for "/"
            print "$1\n" while $group =~ m{"doc://[^"]*/documentation/[^/"]+/([^/"]+)"}g;
        }' "$page")
    if [ -n "$uncurated" ]; then
        echo "docs: symbols of $module in no Topics group of Sources/$module/$module.docc/$module.md:" >&2
        echo "$uncurated" | sed 's/^/  /' >&2
        status=1
    fi
done
[ "$status" = 0 ] || exit 1

echo "docs: built $archive"
if [ "${1:-}" = --open ]; then
    echo "docs: open http://localhost:8000/documentation/strata (Ctrl-C stops the server)"
    cd "$archive" && exec python3 -m http.server 8000
fi
