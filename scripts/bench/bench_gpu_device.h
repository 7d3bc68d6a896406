/* bench_gpu_device.h: the CUDA runtime queries of bench_gpu (device name and
 * memory, copy bandwidth), kept in one small .cu so the driver stays C. */
#ifndef BENCH_GPU_DEVICE_H
#define BENCH_GPU_DEVICE_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* 1 and the device's description and memory, or 0 and why not. */
int bench_gpu_device_info(char *name, size_t name_len, double *free_bytes, double *total_bytes, char *why,
                          size_t why_len);
/* Device-to-device copy bandwidth, bytes/s (read + write), best of reps; 0
 * on failure. */
double bench_gpu_copy_bandwidth(size_t bytes, int reps);

#ifdef __cplusplus
}
#endif

#endif
