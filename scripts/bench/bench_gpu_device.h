/* bench_gpu_device.h: the CUDA runtime queries of bench_gpu (device memory,
 * copy bandwidth), kept in one small .cu so the driver stays C. */
#ifndef BENCH_GPU_DEVICE_H
#define BENCH_GPU_DEVICE_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* 1 and the current device's free and total memory, or 0 and why not (its
 * description comes from bg_backend_available, as in every manifest). */
int bench_gpu_device_memory(double *free_bytes, double *total_bytes, char *why, size_t why_len);
/* Device-to-device copy bandwidth, bytes/s (read + write), best of reps; 0
 * on failure. */
double bench_gpu_copy_bandwidth(size_t bytes, int reps);

#ifdef __cplusplus
}
#endif

#endif
