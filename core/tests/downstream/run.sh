#!/usr/bin/env bash
# run.sh MODE BUILD_DIR SOURCE_DIR WORK: the library as an outside user
# meets it.
#   package     cmake --install BUILD_DIR into WORK/prefix, then a downstream
#               CMake project finds it with find_package(bagnold)
#   pkgconfig   the same install, then a plain cc line from pkg-config
#   subproject  the downstream project add_subdirectory()s the source tree
#               (library only, CUDA off to keep it short)
#   readme      core/README.md's C program (its first ```c block), built through
#               find_package like 'package'; it must report that the floor
#               carries the geostatic layer's weight within 2%
#   hello       the top-level README's First hour C program, built the same
#               way; it must print its particle count and a runout
# The first three build core/tests/downstream/main.c and run it.
set -euo pipefail
mode="$1" build="$2" src="$3" work="$4"
here="$src/core/tests/downstream"
rm -rf -- "$work" && mkdir -p -- "$work"
prefix="$work/prefix"
case "$mode" in
  package)
    cmake --install "$build" --prefix "$prefix" >"$work/install.log"
    cmake -S "$here" -B "$work/b" -DCMAKE_PREFIX_PATH="$prefix" >"$work/configure.log"
    cmake --build "$work/b" >"$work/build.log"
    "$work/b/downstream"
    # the shared library the Python package loads, in its own folder, and
    # found there through BAGNOLD_PREFIX (core/python/library.cmake)
    so="$(find "$prefix" -path '*/bagnold/libbagnold.so' | head -n 1)"
    [[ -n "$so" ]] || { echo "cmake --install left out lib*/bagnold/libbagnold.so" >&2; exit 1; }
    for py in /usr/bin/python3 python3; do
      if command -v "$py" >/dev/null && "$py" -c "import numpy" 2>/dev/null; then
        got="$(cd "$work" && env -u BAGNOLD_LIBRARY -u BAGNOLD_BUILD_DIR BAGNOLD_PREFIX="$prefix" \
          PYTHONPATH="$src/core/python" "$py" -c "import bagnold; print(bagnold.library_path)")"
        [[ "$got" == "$(cd "$(dirname "$so")" && pwd -P)/libbagnold.so" ]] ||
          { echo "the package loaded $got, not the installed $so" >&2; exit 1; }
        echo "Python loads the installed $so"
        break
      fi
    done
    ;;
  pkgconfig)
    command -v pkg-config >/dev/null || { echo "pkg-config not found (scripts/lab setup installs it)" >&2; exit 1; }
    cmake --install "$build" --prefix "$prefix" >"$work/install.log"
    export PKG_CONFIG_PATH="$(dirname "$(find "$prefix" -name bagnold.pc | head -1)")"
    flags=$(pkg-config --cflags --libs bagnold)
    echo "pkg-config --cflags --libs bagnold: $flags"
    # shellcheck disable=SC2086 # the flags are a word list
    # a shared libbagnold is found at run time through the rpath a user would give
    cc -std=c11 "$here/main.c" -o "$work/downstream" $flags -Wl,-rpath,"$(pkg-config --variable=libdir bagnold)"
    "$work/downstream"
    ;;
  subproject)
    cmake -S "$here" -B "$work/b" -DBAGNOLD_SUBDIR="$src" -DBAGNOLD_CUDA=OFF >"$work/configure.log"
    cmake --build "$work/b" -j 2 >"$work/build.log"
    "$work/b/downstream"
    ;;
  readme)
    awk '/^```c$/ {on = 1; next} on && /^```$/ {exit} on {print}' "$src/core/README.md" >"$work/readme.c"
    [[ -s "$work/readme.c" ]] || { echo "core/README.md has no \`\`\`c block" >&2; exit 1; }
    cmake --install "$build" --prefix "$prefix" >"$work/install.log"
    cmake -S "$here" -B "$work/b" -DCMAKE_PREFIX_PATH="$prefix" -DDOWNSTREAM_SOURCE="$work/readme.c" \
      >"$work/configure.log"
    cmake --build "$work/b" >"$work/build.log"
    out=$(cd "$work" && "$work/b/downstream")
    echo "$out"
    ratio=$(sed -n 's/.*the floor carries \([0-9.]*\) of the weight.*/\1/p' <<<"$out")
    [[ -n "$ratio" ]] || { echo "the README program did not report the floor's load" >&2; exit 1; }
    awk -v r="$ratio" 'BEGIN { exit !(r > 0.98 && r < 1.02) }' ||
      { echo "the floor carries $ratio of the weight, not 1 within 2%" >&2; exit 1; }
    [[ -s "$work/layer.vtu" && -s "$work/layer.bgck" ]] || { echo "layer.vtu or layer.bgck missing" >&2; exit 1; }
    ;;
  hello)
    # the top-level README's first C program ("First hour"): a column collapses
    awk '/^## First hour/ {sec = 1} sec && /^```c$/ {on = 1; next} on && /^```$/ {exit} on {print}' \
      "$src/README.md" >"$work/hello.c"
    [[ -s "$work/hello.c" ]] || { echo "README.md's First hour has no \`\`\`c block" >&2; exit 1; }
    cmake --install "$build" --prefix "$prefix" >"$work/install.log"
    cmake -S "$here" -B "$work/b" -DCMAKE_PREFIX_PATH="$prefix" -DDOWNSTREAM_SOURCE="$work/hello.c" \
      >"$work/configure.log"
    cmake --build "$work/b" >"$work/build.log"
    out=$(cd "$work" && OMP_WAIT_POLICY="${OMP_WAIT_POLICY:-passive}" "$work/b/downstream")
    echo "$out"
    # the Python program of the same section prints the same (python.hello)
    runout=$(sed -n 's/^6320 particles: runout \([0-9.]*\) R0 after 0.5 s$/\1/p' <<<"$out")
    [[ -n "$runout" ]] || { echo "the README's C program did not print 6320 particles and a runout" >&2; exit 1; }
    awk -v r="$runout" 'BEGIN { exit !(r > 1.3 && r < 3.0) }' ||
      { echo "runout $runout R0: not between 1.3 and 3 R0" >&2; exit 1; }
    ;;
  *) echo "usage: $0 package|pkgconfig|subproject|readme|hello BUILD_DIR SOURCE_DIR WORK" >&2; exit 2 ;;
esac
