/* bench_gpu_device.cu: what bench_gpu needs from the CUDA runtime directly:
 * the device's name and memory, and its device-to-device copy bandwidth,
 * measured with CUDA events in the same run as the solver (the yardstick the
 * solver's effective bandwidth is set against). */
#include <cuda_runtime.h>

#include <stdio.h>

#include "bench_gpu_device.h"

extern "C" int bench_gpu_device_info(char *name, size_t name_len, double *free_bytes, double *total_bytes,
                                     char *why, size_t why_len) {
  int n = 0, dev = 0;
  cudaError_t e = cudaGetDeviceCount(&n);
  if (e == cudaSuccess && n == 0) e = cudaErrorNoDevice;
  cudaDeviceProp p;
  if (e == cudaSuccess) e = cudaGetDevice(&dev);
  if (e == cudaSuccess) e = cudaGetDeviceProperties(&p, dev);
  size_t fb = 0, tb = 0;
  if (e == cudaSuccess) e = cudaMemGetInfo(&fb, &tb);
  if (e != cudaSuccess) {
    snprintf(why, why_len, "%s", cudaGetErrorString(e));
    (void)cudaGetLastError();
    return 0;
  }
  /* the driver's CUDA version (cudaDriverGetVersion: 1000 major + 10 minor) */
  int drv = 0;
  (void)cudaDriverGetVersion(&drv);
  snprintf(name, name_len, "%s (sm_%d%d, %d SMs, %.1f GB, driver CUDA %d.%d)", p.name, p.major, p.minor,
           p.multiProcessorCount, tb / 1e9, drv / 1000, (drv % 1000) / 10);
  *free_bytes = (double)fb;
  *total_bytes = (double)tb;
  return 1;
}

/* Bandwidth of cudaMemcpy device to device: bytes read + bytes written per
 * second (a copy moves each byte twice), best of reps after one warm-up. */
extern "C" double bench_gpu_copy_bandwidth(size_t bytes, int reps) {
  void *a = NULL, *b = NULL;
  cudaEvent_t e0, e1;
  double best = 0;
  if (cudaMalloc(&a, bytes) != cudaSuccess || cudaMalloc(&b, bytes) != cudaSuccess) goto out;
  if (cudaEventCreate(&e0) != cudaSuccess || cudaEventCreate(&e1) != cudaSuccess) goto out;
  cudaMemset(a, 1, bytes);
  cudaMemcpy(b, a, bytes, cudaMemcpyDeviceToDevice);
  for (int r = 0; r < reps; ++r) {
    float ms = 0;
    cudaEventRecord(e0);
    cudaMemcpy(b, a, bytes, cudaMemcpyDeviceToDevice);
    cudaEventRecord(e1);
    cudaEventSynchronize(e1);
    cudaEventElapsedTime(&ms, e0, e1);
    double bw = ms > 0 ? 2.0 * (double)bytes / (ms * 1e-3) : 0;
    if (bw > best) best = bw;
  }
  cudaEventDestroy(e0);
  cudaEventDestroy(e1);
out:
  cudaFree(a);
  cudaFree(b);
  (void)cudaGetLastError();
  return best;
}
