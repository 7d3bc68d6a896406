/* bench_gpu_device.cu: what bench_gpu needs from the CUDA runtime directly:
 * the device's free memory, and its device-to-device copy bandwidth,
 * measured with CUDA events in the same run as the solver (the yardstick the
 * solver's effective bandwidth is set against). */
#include <cuda_runtime.h>

#include <stdio.h>

#include "bench_gpu_device.h"

extern "C" int bench_gpu_device_memory(double *free_bytes, double *total_bytes, char *why, size_t why_len) {
  size_t fb = 0, tb = 0;
  cudaError_t e = cudaMemGetInfo(&fb, &tb);
  if (e != cudaSuccess) {
    snprintf(why, why_len, "%s", cudaGetErrorString(e));
    (void)cudaGetLastError();
    return 0;
  }
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
