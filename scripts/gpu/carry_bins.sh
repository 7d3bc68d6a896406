#!/usr/bin/env bash
# carry_bins.sh: binaries built here, packed for a device call, where a
# build costs minutes of the call's ten (paper_runs.sh and peers_gpu.sh run
# binaries built elsewhere). A call carries at most 64 MiB with the working
# tree, so the executables travel xz-compressed (about a fifth of their
# size), with the shared libraries a bare device image lacks (GSL, libgomp:
# exp_impact would not start without libgsl.so.27, 2026-12-06).
#
# here:       scripts/gpu/carry_bins.sh pack DIR BIN...   (DIR an ignored folder, e.g. .devc)
#             builds BIN... in BAGNOLD_BIN's tree (default build-dev, a CUDA build), packs
#             BAGNOLD_BIN/BIN... (default build-dev/bin) into DIR/bin.txz, copies the
#             libraries into DIR/lib and writes DIR/commit (the commit they were built at)
# on device:  scripts/gpu/carry_bins.sh unpack DIR        (carry DIR in the call)
#             unpacks into DIR/bin and prints the environment to eval:
#             eval "$(scripts/gpu/carry_bins.sh unpack .devc)"
#             sets BAGNOLD_BIN, GSL_LIB, LD_LIBRARY_PATH and BAGNOLD_COMMIT for paper_runs.sh
# Exit status: 0 done, 1 a binary or library missing, 2 bad usage.
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd -P)"
usage() { echo "usage: $0 pack DIR BIN... | unpack DIR" >&2; exit 2; }
(($# >= 2)) || usage
cmd="$1" dir="$2"
shift 2
case "$cmd" in
  pack)
    (($# >= 1)) || usage
    bin="${BAGNOLD_BIN:-$root/build-dev/bin}"
    # built from this tree first, so that the commit written is the binaries'
    if [[ -f "$bin/../CMakeCache.txt" ]]; then
      cmake --build "$bin/.." --target "$@" -j "$(nproc)" >/dev/null || { echo "error: building $* in $bin/.. failed" >&2; exit 1; }
    fi
    for b in "$@"; do [[ -x "$bin/$b" ]] || { echo "error: no executable $bin/$b (build it first)" >&2; exit 1; }; done
    mkdir -p -- "$dir/lib" || exit 1
    tar -cJf "$dir/bin.txz" -C "$bin" "$@" || exit 1
    # the libraries the executables load that a bare image may lack, from where this machine has them
    for l in libgsl.so.27 libgslcblas.so.0 libgomp.so.1; do
      p="$(ldconfig -p | awk -v l="$l" '$1 == l { print $NF; exit }')"
      [[ -n "$p" ]] || { echo "error: $l not found here (install libgsl27 libgomp1)" >&2; exit 1; }
      cp -L -- "$p" "$dir/lib/$l" || exit 1
    done
    git -C "$root" rev-parse --short HEAD >"$dir/commit"
    if [[ -n "$(git -C "$root" status --porcelain --untracked-files=no)" ]]; then
      echo "warning: the tree has uncommitted changes; the binaries are not exactly $(cat "$dir/commit")" >&2
    fi
    echo "carry_bins: $# executables ($(du -h "$dir/bin.txz" | cut -f1)) and 3 libraries in $dir, commit $(cat "$dir/commit")" >&2
    ;;
  unpack)
    [[ -f "$dir/bin.txz" ]] || { echo "error: no $dir/bin.txz (carry the folder that pack wrote)" >&2; exit 1; }
    dir="$(cd "$dir" && pwd -P)"
    mkdir -p "$dir/bin" && tar -xJf "$dir/bin.txz" -C "$dir/bin" || exit 1
    printf 'export BAGNOLD_BIN=%q GSL_LIB=%q LD_LIBRARY_PATH=%q BAGNOLD_COMMIT=%q\n' "$dir/bin" "$dir/lib" \
      "$dir/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" "$(cat "$dir/commit" 2>/dev/null || echo unknown)"
    ;;
  *) usage ;;
esac
