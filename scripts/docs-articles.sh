#!/usr/bin/env bash
# Writes the articles of the DocC catalogs (Sources/<Module>/<Module>.docc/Articles/) from the
# pages in docs/ and README.md's quick start: docs/ stays the single source, the articles are
# generated copies that are checked in so that `swift package generate-documentation` alone
# builds the catalogs.
#
#   scripts/docs-articles.sh           rewrite the articles
#   scripts/docs-articles.sh --check   change nothing; fail if an article is missing, stale or
#                                      extra (CI runs this through scripts/docs.sh)
#
# What changes on the way: a generated-file comment under the title; links to other pages
# (`[text](page.md#part)`) become DocC links (`<doc:page#part>`) inside one catalog, or name
# the page and its module when it is in another catalog (DocC cannot link there); README's quick start becomes the article
# getting-started (its `###` sections become `##`). Needs bash and perl.
set -euo pipefail

cd "$(dirname "$0")/.."

check=0
case "${1:-}" in
    --check) check=1 ;;
    "") ;;
    *) echo "usage: $0 [--check]" >&2; exit 2 ;;
esac

# Which catalog each page goes to: "module page" (page = a file in docs/ without .md; the
# special page getting-started is README.md's "## Quick start" section).
pages="
Strata getting-started
Strata coming-from-core-data
Strata concurrency
Strata predicates
Strata full-text-search
Strata batch-requests
Strata history
Strata migration
Strata reliability
Strata architecture
Strata performance
StrataStacks choosing-a-stack
StrataFetchedResults fetched-results
StrataSync sync
"

# "page=module,page=module,…" for the link rewriting.
page_modules=$(echo "$pages" | awk 'NF == 2 { printf "%s%s=%s", sep, $2, $1; sep = "," }')
export page_modules

# Every page in docs/ must have a catalog (a new page that is forgotten fails the check).
for file in docs/*.md; do
    page=$(basename "$file" .md)
    if ! grep -q " $page\$" <<<"$pages"; then
        echo "docs-articles: docs/$page.md is in no catalog: add it to the list in $0" >&2
        exit 1
    fi
done

out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

# Prints the article for one page to stdout.
render() {
    local module=$1 page=$2 source=docs/$2.md
    [ "$page" != getting-started ] || source=README.md
    if [ "$page" = getting-started ]; then
        # The quick start section, "## Quick start" up to the next "## " heading.
        awk '/^## / { inside = ($0 == "## Quick start") ; if (inside) next } inside' README.md \
            | perl -pe 'BEGIN { print "# Getting started\n\nA model, a store, a context: the quick start of the README, with the stacks and fetched results.\n" } $fence = !$fence if /^\s*```/; s/^###/##/ if !$fence && /^### /'
    else
        cat "$source"
    fi | module="$module" source="$source" perl -0777 -pe '
        my %module_of = map { split /=/ } split /,/, $ENV{page_modules};
        my $module = $ENV{module};
        # The title of docs/PAGE.md without a trailing "(…)": "Sync (`StrataSync`)" is "Sync".
        sub page_title {
            my ($page) = @_;
            local $/ = "\n";
            open(my $file, "<", "docs/$page.md") or die "docs-articles: docs/$page.md: $!\n";
            my $title = <$file>;
            $title =~ s/^#\s+//; $title =~ s/\s*\([^)]*\)\s*$//; $title =~ s/\s+$//;
            return $title;
        }
        # GitHub names a heading "the-sqlite-file", DocC "The-SQLite-file": find the heading.
        sub docc_anchor {
            my ($page, $part) = @_;
            local $/ = "\n";   # -0777 reads whole files; read this one by lines
            open(my $file, "<", "docs/$page.md") or die "docs-articles: docs/$page.md: $!\n";
            my $fence = 0;
            while (my $line = <$file>) {
                $fence = !$fence if $line =~ /^\s*```/;
                next if $fence || $line !~ /^#+\s+(.*?)\s*$/;
                (my $text = $1) =~ s/`//g;
                (my $github = lc $text) =~ s/[^a-z0-9 _-]//g;
                $github =~ s/ /-/g;
                if ("#$github" eq $part) { $text =~ s/\s+/-/g; return "#$text" }
            }
            die "docs-articles: $ENV{source} links to $page.md$part, which has no such heading\n";
        }
        # The instructions of scripts/docs-tables.py (what a table is rendered from) stay in docs/.
        s{<!-- sandbox-table\n.*?-->\n}{}gs;
        s{<!-- /sandbox-table -->\n}{}g;
        # DocC shows backticks in titles as they are: "Sync (`StrataSync`)" becomes "Sync (StrataSync)".
        s{\A(# [^\n]*)}{ (my $title = $1) =~ s/`//g; $title }e;
        # The generated-file note goes under the title (DocC wants the title first).
        s/\A(# [^\n]*\n)/$1\n<!-- Generated from $ENV{source} by scripts\/docs-articles.sh: edit that file, not this one. -->\n/;
        # [text](docs/page.md#part) and [text](page.md#part); the text may span lines. (Not
        # from an escaped bracket, `\[`, as in a grep pattern in a code block.)
        s{(?<!\\)\[([^\]]*)\]\((?:docs/)?([a-z0-9-]+)\.md(#[^)]*)?\)}{
            my ($text, $page, $part) = ($1, $2, $3 // "");
            my $target = $module_of{$page};
            die "docs-articles: $ENV{source} links to $page.md, which is in no catalog\n" unless defined $target;
            $part = docc_anchor($page, $part) if $part ne "";
            if ($target eq $module && $text =~ m{\A(?:docs/)?[a-z0-9-]+\.md\z}) { "<doc:$page$part>" }
            elsif ($target eq $module) { "[$text](<doc:$page$part>)" }
            else {
                # DocC drops links into another module of the combined archive (only a
                # dependency could be linked, and only with experimental flags): name the page.
                "*" . page_title($page) . "* in the `$target` documentation"
            }
        }ge;
        # [text](#part): a heading of this page.
        if ($ENV{source} =~ m{^docs/([a-z0-9-]+)\.md$}) {
            my $self = $1;
            s{(?<!\\)\[([^\]]*)\]\((#[^)]*)\)}{"[$1](<doc:$self" . docc_anchor($self, $2) . ">)"}ge;
        }
        # Links to files outside docs/ (CHANGELOG.md, scripts) have no page in the archive.
        s{(?<!\\)\[([^\]]*)\]\((?!https?:|<doc:|\.\./|#)[^)]*\)}{$1}g;
    '
}

while read -r module page; do
    [ -n "$module" ] || continue
    mkdir -p "$out/$module"
    render "$module" "$page" > "$out/$module/$page.md"
done <<< "$pages"

status=0
for module in Strata StrataStacks StrataFetchedResults StrataSync; do
    dir=Sources/$module/$module.docc/Articles
    if [ "$check" = 1 ]; then
        if ! diff -r "$out/$module" "$dir" > /dev/null 2>&1; then
            echo "docs-articles: $dir is not what docs/ gives; run scripts/docs-articles.sh and commit" >&2
            diff -r "$out/$module" "$dir" >&2 || true
            status=1
        fi
    else
        rm -rf "$dir"
        mkdir -p "$dir"
        cp "$out/$module"/*.md "$dir/"
    fi
done
exit $status
