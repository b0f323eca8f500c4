#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
#
# scripts/build-id on a scratch repository: a clean tree is its commit; an
# edit to the daemon's sources is "<commit>-dirty+<digest>", another edit
# another digest, the same edit the same; a new source file there counts;
# docs and tests do not; outside git it fails (meson then uses the
# project's version).
#
#   tests/tools/check_build_id.sh SOURCE_ROOT
set -eu
ID="sh $1/scripts/build-id"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

cd "$T"
if $ID "$T" > /dev/null 2>&1; then fail "outside git: an id"; fi
git init -q .
git config user.email t@example.org
git config user.name t
mkdir control tests
echo 'int a;' > control/a.c
echo doc > README.md
echo t > tests/t.c
git add . && git commit -q -m one
c=$(git rev-parse HEAD)
[ "$($ID "$T")" = "$c" ] || fail "clean tree: $($ID "$T"), not $c"
echo more >> README.md && echo more >> tests/t.c
[ "$($ID "$T")" = "$c" ] || fail "docs and tests edited: $($ID "$T")"
echo 'int b;' >> control/a.c
x=$($ID "$T")
case $x in "$c-dirty+"????????????????) ;; *) fail "edited: $x" ;; esac
[ "$($ID "$T")" = "$x" ] || fail "the same edit, another id"
echo 'int c;' >> control/a.c
y=$($ID "$T")
case $y in "$c-dirty+"*) ;; *) fail "edited again: $y" ;; esac
[ "$y" != "$x" ] || fail "another edit, the same id $y"
git checkout -q control/a.c
[ "$($ID "$T")" = "$c" ] || fail "edit undone: $($ID "$T")"
mkdir dataplane && echo 'int d;' > dataplane/d.c
z=$($ID "$T")
case $z in "$c-dirty+"*) ;; *) fail "a new source file: $z" ;; esac
echo "build-id: ok"
