/* bg_backend_list.h: the one list of backends (resources), in the order
 * "auto" prefers them. Every consumer reads it: sim.c for the ops tables,
 * CMake (file(STRINGS) + regex) for the tests registered per resource,
 * Python through bg_backend_count/bg_backend_name. Keep one X-line per
 * resource, on one line each, as CMake parses them.
 *
 * X(ident, "name", REQUIRES, AUTO) -- ident makes the symbol bg_backend_<ident>;
 * REQUIRES is CPU or CUDA (rows of CUDA are compiled only with
 * BAGNOLD_HAVE_CUDA); AUTO 1 when "auto" may pick it. */
#ifndef BG_BACKEND_LIST_H
#define BG_BACKEND_LIST_H

#define BG_BACKEND_LIST(X)                 \
  X(cuda,        "cuda",        CUDA, 1)   \
  X(cuda_global, "cuda/global", CUDA, 0)   \
  X(cpu,         "cpu",         CPU,  1)   \
  X(cpu_ref,     "cpu/ref",     CPU,  0)

#endif /* BG_BACKEND_LIST_H */
