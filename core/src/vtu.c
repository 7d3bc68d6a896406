/* vtu.c: binary VTU particles (VTK XML UnstructuredGrid of vertex cells,
 * raw appended Float32 data with UInt64 block headers) and the .pvd index
 * of a ParaView time series. Written from bg_sim_get one field at a time,
 * so every backend gets it and memory stays at one field (9 floats per
 * particle) whatever the particle count. */
#define _POSIX_C_SOURCE 200809L /* mkdir, unlink */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include "bg_internal.h"

/* ------------------------------------------------------------ byte output */

/* A checked binary stream: the first failure's errno is kept, later writes
 * are skipped, and the caller reports it once at close. */
typedef struct out_stream {
  FILE *fp;
  int bad, err;
} out_stream;

static void out_bytes(out_stream *o, const void *p, size_t n) {
  if (o->bad || n == 0) return;
  if (fwrite(p, 1, n, o->fp) != n) {
    o->bad = 1;
    o->err = errno ? errno : EIO;
  }
}

/* Reverses each w-byte word of buf (n words) on a big-endian host: the file
 * says LittleEndian whatever machine wrote it. */
static void to_le(unsigned char *buf, size_t n, size_t w) {
  if (bg_host_little_endian()) return;
  for (size_t i = 0; i < n; ++i)
    for (size_t a = 0, b = w - 1; a < b; ++a, --b) {
      unsigned char t = buf[i * w + a];
      buf[i * w + a] = buf[i * w + b];
      buf[i * w + b] = t;
    }
}

static void out_u64(out_stream *o, uint64_t v) {
  unsigned char b[8];
  memcpy(b, &v, 8);
  to_le(b, 1, 8);
  out_bytes(o, b, 8);
}

/* Float32 values through a fixed chunk: bg_real is float, but the copy keeps
 * the swap off the caller's array. */
static void out_f32(out_stream *o, const float *v, size_t n) {
  unsigned char chunk[1 << 16];
  const size_t per = sizeof chunk / 4;
  for (size_t i = 0; i < n; i += per) {
    size_t k = n - i < per ? n - i : per;
    memcpy(chunk, v + i, k * 4);
    to_le(chunk, k, 4);
    out_bytes(o, chunk, k * 4);
  }
}

/* ------------------------------------------------------------- the arrays */

/* Every array of the file, in the order of the appended block. Derived
 * ones are computed from the field they name. */
typedef enum vtu_src {
  SRC_FIELD = 0, /* bg_sim_get(field) as it is */
  SRC_PRESSURE,  /* -tr(sigma) / 3 from BG_FIELD_STRESS */
  SRC_VON_MISES, /* sqrt(3/2 s:s), s the deviator of sigma */
  SRC_LOG,       /* log of the field (log Jp from Jp) */
  SRC_CONNECTIVITY,
  SRC_OFFSETS,
  SRC_TYPES
} vtu_src;

typedef struct vtu_array {
  const char *name;
  vtu_src src;
  bg_field field;
  int comps;
} vtu_array;

static const vtu_array k_arrays[] = {
    {"position", SRC_FIELD, BG_FIELD_X, 3},
    {"velocity", SRC_FIELD, BG_FIELD_V, 3},
    {"deformation_gradient", SRC_FIELD, BG_FIELD_F, 9},
    {"stress", SRC_FIELD, BG_FIELD_STRESS, 9},
    {"pressure", SRC_PRESSURE, BG_FIELD_STRESS, 1},
    {"von_mises", SRC_VON_MISES, BG_FIELD_STRESS, 1},
    {"q", SRC_FIELD, BG_FIELD_Q, 1},
    {"log_Jp", SRC_LOG, BG_FIELD_JP, 1},
    {"density", SRC_FIELD, BG_FIELD_DENSITY, 1},
    {"mass", SRC_FIELD, BG_FIELD_MASS, 1},
    {"active", SRC_FIELD, BG_FIELD_ACTIVE, 1},
    {"mode", SRC_FIELD, BG_FIELD_MODE, 1},
    {"material", SRC_FIELD, BG_FIELD_MATERIAL, 1},
    {"connectivity", SRC_CONNECTIVITY, BG_FIELD_X, 1},
    {"offsets", SRC_OFFSETS, BG_FIELD_X, 1},
    {"types", SRC_TYPES, BG_FIELD_X, 1},
};
enum { N_ARRAYS = sizeof k_arrays / sizeof k_arrays[0] };

static size_t elem_bytes(const vtu_array *a) {
  if (a->src == SRC_CONNECTIVITY || a->src == SRC_OFFSETS) return 8;
  if (a->src == SRC_TYPES) return 1;
  return 4;
}

static const char *elem_type(const vtu_array *a) {
  if (a->src == SRC_CONNECTIVITY || a->src == SRC_OFFSETS) return "Int64";
  if (a->src == SRC_TYPES) return "UInt8";
  return "Float32";
}

/* One DataArray element of the header. */
static void header_array(FILE *fp, const vtu_array *a, uint64_t offset) {
  fprintf(fp, "        <DataArray type=\"%s\" Name=\"%s\"", elem_type(a), a->name);
  if (a->comps > 1) fprintf(fp, " NumberOfComponents=\"%d\"", a->comps);
  fprintf(fp, " format=\"appended\" offset=\"%llu\"/>\n", (unsigned long long)offset);
}

/* The XML part, up to and including the '_' that opens the raw block. The
 * offsets are known before any data: every block is 8 + n * comps * size. */
static void write_header(FILE *fp, size_t n) {
  uint64_t off[N_ARRAYS + 1];
  /* the TimeValue field data comes first in the block: 8 + 8 bytes */
  uint64_t o = 16;
  for (int i = 0; i < N_ARRAYS; ++i) {
    off[i] = o;
    o += 8 + (uint64_t)n * (uint64_t)k_arrays[i].comps * elem_bytes(&k_arrays[i]);
  }
  fprintf(fp,
          "<?xml version=\"1.0\"?>\n"
          "<VTKFile type=\"UnstructuredGrid\" version=\"1.0\" byte_order=\"LittleEndian\" "
          "header_type=\"UInt64\">\n"
          "  <UnstructuredGrid>\n"
          "    <FieldData>\n"
          "      <DataArray type=\"Float64\" Name=\"TimeValue\" NumberOfTuples=\"1\" "
          "format=\"appended\" offset=\"0\"/>\n"
          "    </FieldData>\n"
          "    <Piece NumberOfPoints=\"%zu\" NumberOfCells=\"%zu\">\n"
          "      <PointData Scalars=\"density\" Vectors=\"velocity\" Tensors=\"stress\">\n",
          n, n);
  for (int i = 1; i < N_ARRAYS && k_arrays[i].src < SRC_CONNECTIVITY; ++i)
    header_array(fp, &k_arrays[i], off[i]);
  fprintf(fp, "      </PointData>\n      <Points>\n");
  header_array(fp, &k_arrays[0], off[0]);
  fprintf(fp, "      </Points>\n      <Cells>\n");
  for (int i = 0; i < N_ARRAYS; ++i)
    if (k_arrays[i].src >= SRC_CONNECTIVITY) header_array(fp, &k_arrays[i], off[i]);
  fprintf(fp,
          "      </Cells>\n    </Piece>\n  </UnstructuredGrid>\n"
          "  <AppendedData encoding=\"raw\">\n   _");
}

/* The cell arrays: vertex p is cell p (offsets 1..n, type 1 = VTK_VERTEX),
 * in chunks so that no n-sized integer array is ever allocated. */
static void write_cells(out_stream *o, const vtu_array *a, size_t n) {
  out_u64(o, (uint64_t)n * elem_bytes(a));
  if (a->src == SRC_TYPES) {
    unsigned char ones[4096];
    memset(ones, 1, sizeof ones);
    for (size_t i = 0; i < n; i += sizeof ones)
      out_bytes(o, ones, n - i < sizeof ones ? n - i : sizeof ones);
    return;
  }
  int64_t chunk[4096];
  const size_t per = sizeof chunk / sizeof chunk[0];
  for (size_t i = 0; i < n; i += per) {
    size_t k = n - i < per ? n - i : per;
    for (size_t j = 0; j < k; ++j) chunk[j] = (int64_t)(i + j) + (a->src == SRC_OFFSETS ? 1 : 0);
    to_le((unsigned char *)chunk, k, 8);
    out_bytes(o, chunk, k * 8);
  }
}

/* pressure or von Mises of each particle's stress, in place into out */
static void derive_stress(const bg_real *s, size_t n, int von_mises, bg_real *out) {
  for (size_t p = 0; p < n; ++p) {
    const bg_real *a = s + 9 * p;
    double tr = (double)a[0] + a[4] + a[8];
    if (!von_mises) {
      out[p] = (bg_real)(-tr / 3.0);
      continue;
    }
    double ss = 0;
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j) {
        double d = (double)a[3 * i + j] - (i == j ? tr / 3.0 : 0.0);
        ss += d * d;
      }
    out[p] = (bg_real)sqrt(1.5 * ss);
  }
}

static bg_status write_vtu_body(bg_sim *sim, out_stream *o, size_t n, bg_real *buf, bg_real *one) {
  for (int i = 0; i < N_ARRAYS; ++i) {
    const vtu_array *a = &k_arrays[i];
    if (a->src >= SRC_CONNECTIVITY) {
      write_cells(o, a, n);
      continue;
    }
    int w = bg_field_width(a->field);
    bg_status s = bg_sim_get(sim, a->field, buf, (size_t)w * n);
    if (s != BG_OK) return s;
    const bg_real *data = buf;
    if (a->src == SRC_PRESSURE || a->src == SRC_VON_MISES) {
      derive_stress(buf, n, a->src == SRC_VON_MISES, one);
      data = one;
    } else if (a->src == SRC_LOG) {
      for (size_t p = 0; p < n; ++p) one[p] = (bg_real)log((double)buf[p]);
      data = one;
    }
    out_u64(o, (uint64_t)n * (uint64_t)a->comps * 4);
    out_f32(o, data, n * (size_t)a->comps);
  }
  return BG_OK;
}

bg_status bg_sim_write_vtu(bg_sim *sim, const char *path) {
  if (!sim) return BG_ERR_NULL;
  if (!path) return bg_fail(sim, BG_ERR_NULL, "path is NULL");
  size_t n = sim->ops->count(sim->state);
  size_t m = n ? n : 1;
  if (m > SIZE_MAX / (9 * sizeof(bg_real)))
    return bg_fail(sim, BG_ERR_OVERFLOW, "%zu particles overflow the output buffer size", n);
  bg_real *buf = malloc(9 * m * sizeof *buf), *one = malloc(m * sizeof *one);
  if (!buf || !one) {
    free(buf);
    free(one);
    return bg_fail(sim, BG_ERR_NOMEM, "out of memory for the VTU output of %zu particles", n);
  }
  bg_out f;
  bg_status s = BG_OK;
  if (bg_out_open(&f, path, "wb") != 0) {
    s = bg_fail(sim, BG_ERR_IO, "cannot open %s.tmp for writing: %s", path, strerror(errno));
  } else {
    out_stream o = {f.fp, 0, 0};
    write_header(o.fp, n);
    out_u64(&o, 8);
    double t = sim->time;
    unsigned char tb[8];
    memcpy(tb, &t, 8);
    to_le(tb, 1, 8);
    out_bytes(&o, tb, 8);
    s = write_vtu_body(sim, &o, n, buf, one);
    if (s == BG_OK) fputs("\n  </AppendedData>\n</VTKFile>\n", o.fp);
    if (s != BG_OK) {
      bg_out_abort(&f);
    } else {
      int e = bg_out_commit(&f, 0, o.bad ? o.err : 0);
      if (e) s = bg_fail(sim, BG_ERR_IO, "writing %s failed: %s", path, strerror(e));
    }
  }
  free(buf);
  free(one);
  return s;
}

/* ------------------------------------------------------------- the series */

typedef struct pvd_frame {
  double t;
  unsigned long num;
} pvd_frame;

struct bg_pvd {
  char *dir, *prefix;
  pvd_frame *frames;
  size_t n, cap;
  unsigned long next_num;
  int pending; /* frames from a resumed index, not yet cut at the first frame's time */
  char err[1200];
};

/* bg_pvd_open has no handle to keep a failure's message in: it stays here,
 * per thread, and bg_pvd_last_error(NULL) returns it. */
static _Thread_local char g_open_err[1200];

static void pvd_msg(char *dst, size_t n, const char *fmt, ...)
#ifdef __GNUC__
    __attribute__((format(printf, 3, 4)))
#endif
    ;
static void pvd_msg(char *dst, size_t n, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(dst, n, fmt, ap);
  va_end(ap);
}

/* mkdir -p: every component, an existing directory is fine. */
static int make_dirs(const char *path) {
  size_t len = strlen(path);
  char *buf = malloc(len + 1);
  if (!buf) return -1;
  memcpy(buf, path, len + 1);
  int rc = 0;
  for (char *p = buf + 1; *p && rc == 0; ++p)
    if (*p == '/') {
      *p = 0;
      if (mkdir(buf, 0777) != 0 && errno != EEXIST) rc = -1;
      *p = '/';
    }
  if (rc == 0 && mkdir(buf, 0777) != 0 && errno != EEXIST) rc = -1;
  int e = errno;
  free(buf);
  if (rc == 0) {
    struct stat st;
    if (stat(path, &st) != 0) return -1;
    if (!S_ISDIR(st.st_mode)) {
      errno = ENOTDIR;
      return -1;
    }
  }
  errno = e;
  return rc;
}

/* XML attribute text: the prefix may hold any character but '/' */
static void xml_escape(FILE *fp, const char *s) {
  for (; *s; ++s) {
    switch (*s) {
      case '&':
        fputs("&amp;", fp);
        break;
      case '<':
        fputs("&lt;", fp);
        break;
      case '>':
        fputs("&gt;", fp);
        break;
      case '"':
        fputs("&quot;", fp);
        break;
      default:
        fputc(*s, fp);
    }
  }
}

static void xml_unescape(char *s) {
  static const struct {
    const char *ent;
    char ch;
  } ents[] = {{"&amp;", '&'}, {"&lt;", '<'}, {"&gt;", '>'}, {"&quot;", '"'}, {"&apos;", '\''}};
  char *w = s;
  for (char *r = s; *r;) {
    int done = 0;
    if (*r == '&')
      for (size_t i = 0; i < sizeof ents / sizeof ents[0] && !done; ++i) {
        size_t k = strlen(ents[i].ent);
        if (!strncmp(r, ents[i].ent, k)) {
          *w++ = ents[i].ch;
          r += k;
          done = 1;
        }
      }
    if (!done) *w++ = *r++;
  }
  *w = 0;
}

static char *path_join(const char *dir, const char *prefix, const char *suffix) {
  size_t n = strlen(dir) + strlen(prefix) + strlen(suffix) + 2;
  char *p = malloc(n);
  if (p) snprintf(p, n, "%s/%s%s", dir, prefix, suffix);
  return p;
}

static char *frame_path(const bg_pvd *p, unsigned long num) {
  char suf[40];
  snprintf(suf, sizeof suf, "_%06lu.vtu", num);
  return path_join(p->dir, p->prefix, suf);
}

static int frames_push(bg_pvd *p, double t, unsigned long num) {
  if (p->n == p->cap) {
    size_t cap = p->cap ? 2 * p->cap : 64;
    pvd_frame *f = realloc(p->frames, cap * sizeof *f);
    if (!f) return -1;
    p->frames = f;
    p->cap = cap;
  }
  p->frames[p->n].t = t;
  p->frames[p->n].num = num;
  p->n++;
  return 0;
}

/* The value of attribute name="..." inside the element text [s, e), copied
 * into out (unescaped); 0 when absent or too long. */
static int attr_value(const char *s, const char *e, const char *name, char *out, size_t n) {
  size_t k = strlen(name);
  for (const char *q = s; q + k + 2 <= e; ++q) {
    if (strncmp(q, name, k) || q[k] != '=' || q[k + 1] != '"') continue;
    if (q > s && q[-1] != ' ' && q[-1] != '\t' && q[-1] != '\n') continue;
    const char *v = q + k + 2, *end = memchr(v, '"', (size_t)(e - v));
    if (!end || (size_t)(end - v) >= n) return 0;
    memcpy(out, v, (size_t)(end - v));
    out[end - v] = 0;
    xml_unescape(out);
    return 1;
  }
  return 0;
}

/* Reads an index this file wrote: each <DataSet timestep=".." file="PREFIX_N.vtu"/>. */
static bg_status pvd_parse(bg_pvd *p, const char *path) {
  FILE *fp = fopen(path, "rb");
  if (!fp) {
    if (errno == ENOENT) return BG_OK; /* nothing to resume: a new series */
    pvd_msg(p->err, sizeof p->err, "cannot read %s: %s", path, strerror(errno));
    return BG_ERR_IO;
  }
  size_t cap = 1 << 16, len = 0, r;
  char *text = malloc(cap);
  while (text && (r = fread(text + len, 1, cap - len - 1, fp)) > 0) {
    len += r;
    if (len + 1 == cap) {
      char *t = realloc(text, cap * 2);
      if (!t) {
        free(text);
        text = NULL;
        break;
      }
      text = t;
      cap *= 2;
    }
  }
  int rerr = ferror(fp);
  fclose(fp);
  if (!text || rerr) {
    free(text);
    pvd_msg(p->err, sizeof p->err, "reading %s failed", path);
    return text ? BG_ERR_IO : BG_ERR_NOMEM;
  }
  text[len] = 0;
  bg_status s = BG_OK;
  if (!strstr(text, "<VTKFile") || !strstr(text, "type=\"Collection\"") ||
      !strstr(text, "</Collection>")) {
    pvd_msg(p->err, sizeof p->err,
            "%s is not a .pvd collection this library wrote (no complete <Collection>)", path);
    s = BG_ERR_CORRUPT;
  }
  size_t plen = strlen(p->prefix);
  for (const char *q = text; s == BG_OK && (q = strstr(q, "<DataSet")) != NULL;) {
    const char *e = strchr(q, '>');
    if (!e) {
      pvd_msg(p->err, sizeof p->err, "%s: an unterminated <DataSet> element", path);
      s = BG_ERR_CORRUPT;
      break;
    }
    char ts[64], file[4096];
    char *end = NULL;
    double t = NAN;
    unsigned long num = 0;
    int ok =
        attr_value(q, e, "timestep", ts, sizeof ts) && attr_value(q, e, "file", file, sizeof file);
    if (ok) {
      errno = 0;
      t = strtod(ts, &end);
      ok = end != ts && !*end && isfinite(t);
    }
    /* the file must be one of this series' frames: PREFIX_<digits>.vtu */
    size_t fl = ok ? strlen(file) : 0;
    ok = ok && fl > plen + 5 && !strncmp(file, p->prefix, plen) && file[plen] == '_' &&
         !strcmp(file + fl - 4, ".vtu");
    if (ok) {
      ok = file[plen + 1] >= '0' && file[plen + 1] <= '9';
      num = strtoul(file + plen + 1, &end, 10);
      ok = ok && end == file + fl - 4;
    }
    if (!ok) {
      pvd_msg(p->err, sizeof p->err, "%s: a <DataSet> entry this library did not write: %.*s", path,
              (int)(e - q + 1 < 200 ? e - q + 1 : 200), q);
      s = BG_ERR_CORRUPT;
      break;
    }
    if (frames_push(p, t, num) != 0) {
      pvd_msg(p->err, sizeof p->err, "out of memory reading %s", path);
      s = BG_ERR_NOMEM;
    }
    q = e;
  }
  free(text);
  return s;
}

void bg_pvd_close(bg_pvd *p) {
  if (!p) return;
  free(p->dir);
  free(p->prefix);
  free(p->frames);
  free(p);
}

bg_status bg_pvd_open(const char *dir, const char *prefix, int resume, bg_pvd **out) {
  g_open_err[0] = 0;
  if (!out) return BG_ERR_NULL;
  *out = NULL;
  if (!dir || !prefix) {
    pvd_msg(g_open_err, sizeof g_open_err, "bg_pvd_open: %s is NULL", dir ? "prefix" : "dir");
    return BG_ERR_NULL;
  }
  if (!dir[0] || !prefix[0] || strchr(prefix, '/')) {
    pvd_msg(g_open_err, sizeof g_open_err, "bg_pvd_open: %s",
            !dir[0]      ? "dir is empty"
            : !prefix[0] ? "prefix is empty"
                         : "prefix holds a '/'");
    return BG_ERR_RANGE;
  }
  if (resume != 0 && resume != 1) {
    pvd_msg(g_open_err, sizeof g_open_err, "bg_pvd_open: resume = %d, accepted 0 or 1", resume);
    return BG_ERR_RANGE;
  }
  if (make_dirs(dir) != 0) {
    pvd_msg(g_open_err, sizeof g_open_err, "cannot create the directory %s: %s", dir,
            strerror(errno));
    return BG_ERR_IO;
  }
  bg_pvd *p = calloc(1, sizeof *p);
  if (!p || !(p->dir = strdup(dir)) || !(p->prefix = strdup(prefix))) {
    bg_pvd_close(p);
    pvd_msg(g_open_err, sizeof g_open_err, "out of memory");
    return BG_ERR_NOMEM;
  }
  if (resume) {
    char *ipath = path_join(dir, prefix, ".pvd");
    bg_status s = ipath ? pvd_parse(p, ipath) : BG_ERR_NOMEM;
    free(ipath);
    if (s != BG_OK) {
      memcpy(g_open_err, p->err, sizeof g_open_err);
      bg_pvd_close(p);
      return s;
    }
    p->pending = 1;
  }
  *out = p;
  return BG_OK;
}

const char *bg_pvd_last_error(const bg_pvd *p) { return p ? p->err : g_open_err; }

/* The index, complete, under .tmp and renamed over the old one. */
static bg_status pvd_write_index(bg_pvd *p) {
  char *path = path_join(p->dir, p->prefix, ".pvd");
  if (!path) {
    pvd_msg(p->err, sizeof p->err, "out of memory");
    return BG_ERR_NOMEM;
  }
  bg_out f;
  bg_status s = BG_OK;
  if (bg_out_open(&f, path, "w") != 0) {
    pvd_msg(p->err, sizeof p->err, "cannot open %s.tmp for writing: %s", path, strerror(errno));
    s = BG_ERR_IO;
  } else {
    FILE *fp = f.fp;
    fprintf(fp,
            "<?xml version=\"1.0\"?>\n<VTKFile type=\"Collection\" version=\"1.0\" "
            "byte_order=\"LittleEndian\" header_type=\"UInt64\">\n  <Collection>\n");
    for (size_t i = 0; i < p->n; ++i) {
      /* %.17g: the time reads back as the double it was */
      fprintf(fp, "    <DataSet timestep=\"%.17g\" group=\"\" part=\"0\" file=\"", p->frames[i].t);
      xml_escape(fp, p->prefix);
      fprintf(fp, "_%06lu.vtu\"/>\n", p->frames[i].num);
    }
    fprintf(fp, "  </Collection>\n</VTKFile>\n");
    int e = bg_out_commit(&f, 0, 0);
    if (e) {
      pvd_msg(p->err, sizeof p->err, "writing %s failed: %s", path, strerror(e));
      s = BG_ERR_IO;
    }
  }
  free(path);
  return s;
}

/* A resumed series keeps the frames before the first new one; the frames
 * a killed run wrote after its checkpoint are dropped, files and all. */
static void pvd_cut(bg_pvd *p, double t) {
  size_t k = 0;
  p->next_num = 0;
  for (size_t i = 0; i < p->n; ++i) {
    if (p->frames[i].t < t) {
      p->frames[k++] = p->frames[i];
      if (p->frames[i].num + 1 > p->next_num) p->next_num = p->frames[i].num + 1;
    }
  }
  for (size_t i = 0; i < p->n; ++i)
    if (!(p->frames[i].t < t)) {
      int reused = 0;
      for (size_t j = 0; j < k; ++j) reused |= p->frames[j].num == p->frames[i].num;
      char *f = reused ? NULL : frame_path(p, p->frames[i].num);
      if (f) unlink(f);
      free(f);
    }
  p->n = k;
  p->pending = 0;
}

bg_status bg_pvd_frame(bg_pvd *p, bg_sim *sim) {
  if (!p) return BG_ERR_NULL;
  p->err[0] = 0;
  if (!sim) {
    pvd_msg(p->err, sizeof p->err, "sim is NULL");
    return BG_ERR_NULL;
  }
  double t = sim->time;
  if (p->pending) pvd_cut(p, t);
  char *f = frame_path(p, p->next_num);
  if (!f) {
    pvd_msg(p->err, sizeof p->err, "out of memory");
    return BG_ERR_NOMEM;
  }
  bg_status s = bg_sim_write_vtu(sim, f);
  free(f);
  if (s != BG_OK) {
    pvd_msg(p->err, sizeof p->err, "%s", bg_sim_last_error(sim));
    return s;
  }
  if (frames_push(p, t, p->next_num) != 0) {
    pvd_msg(p->err, sizeof p->err, "out of memory");
    return BG_ERR_NOMEM;
  }
  p->next_num++;
  return pvd_write_index(p);
}
