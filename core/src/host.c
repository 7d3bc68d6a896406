/* host.c: the machine a record is made on (bagnold.h, bg_host_describe). */
#define _POSIX_C_SOURCE 200809L /* gethostname, sysconf */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bagnold.h"

/* /proc/cpuinfo's first "model name", without its padding */
static void cpu_model(char *buf, size_t n) {
  snprintf(buf, n, "unknown cpu");
  FILE *fp = fopen("/proc/cpuinfo", "r");
  if (!fp) return;
  char line[512];
  while (fgets(line, sizeof line, fp))
    if (!strncmp(line, "model name", 10)) {
      char *c = strchr(line, ':');
      if (c) {
        c++;
        while (*c == ' ' || *c == '\t') c++;
        c[strcspn(c, "\r\n")] = 0;
        snprintf(buf, n, "%s", c);
      }
      break;
    }
  fclose(fp);
}

void bg_host_describe(bg_host *out) {
  memset(out, 0, sizeof *out);
  if (gethostname(out->name, sizeof out->name - 1) != 0 || !out->name[0]) snprintf(out->name, sizeof out->name, "unknown");
  cpu_model(out->cpu, sizeof out->cpu);
  long cores = sysconf(_SC_NPROCESSORS_ONLN);
  out->cores = cores > 0 ? (int)cores : 1;
}

const char *bg_thread_wait_policy(void) {
  /* read once: what libgomp saw is the environment the process began with */
  static _Thread_local char policy[48];
  if (policy[0]) return policy;
  const char *w = getenv("OMP_WAIT_POLICY"), *spin = getenv("GOMP_SPINCOUNT");
  if (w && *w) {
    size_t i = 0;
    for (; w[i] && i + 1 < sizeof policy; ++i) policy[i] = (char)tolower((unsigned char)w[i]);
    policy[i] = 0;
  } else if (spin && *spin) {
    snprintf(policy, sizeof policy, "spin %.40s", spin);
  } else {
    snprintf(policy, sizeof policy, "default");
  }
  return policy;
}
