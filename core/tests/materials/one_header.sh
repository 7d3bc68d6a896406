#!/usr/bin/env bash
# one_header.sh SOURCE_DIR BUILD_DIR WORK: a material model is one header.
# The project's own build (BUILD_DIR) does not have the fixture model of
# bg_mat_lin.h; a build that scans this folder for model headers too (the
# fixture project beside this script) has it, with no other file changed,
# and check_lin proves it is listed, validated, introspected and steps.
set -euo pipefail
src="$1" build="$2" work="$3"
here="$src/core/tests/materials"
list=generated/public/materials/bg_material_list.h
rm -rf -- "$work" && mkdir -p -- "$work"
if grep -q '"linear-elastic"' "$build/$list"; then
  echo "FAIL: the project's build lists the fixture model" >&2
  exit 1
fi
echo "ok: without the header, no model (the project's $list)"
cmake -S "$here" -B "$work/b" -DBAGNOLD_SOURCE="$src" -DCMAKE_BUILD_TYPE=Release >"$work/configure.log"
grep -q 'X(lin, LIN, 0, "linear-elastic")' "$work/b/bagnold/$list"
echo "ok: with the header, the generated list has X(lin, LIN, 0, \"linear-elastic\")"
cmake --build "$work/b" --target check_lin -j 1 >"$work/build.log"
"$work/b/check_lin"
