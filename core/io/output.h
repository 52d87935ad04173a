/* SPDX-License-Identifier: MIT */
/* Frame and table outputs: VTK, series file, OBJ, PNG preview, atomic file writes. */
#ifndef SIM_OUTPUT_H
#define SIM_OUTPUT_H
#include <stdio.h>

#include "../base/status.h"

/* What one output frame shows; all arrays are borrowed. */
typedef struct sim_frame_view {
  int frame;   /* frame number (file name NNNNN) */
  double time; /* simulated time, s */
  int nv;
  const double *x;        /* 3 * nv positions */
  const double *v;        /* 3 * nv velocities (may be NULL: written as zeros) */
  const int *vert_body;   /* nv body ids */
  int ntet;               /* cells: tetrahedra, and cloth triangles with a 4th corner of -1 */
  const int *tet;         /* 4 * ntet */
  const double *tet_energy_density; /* ntet, J/m^3 (may be NULL: zeros) */
  int ntri;
  const int *tri;         /* 3 * ntri surface triangles (global vertex ids), outward */
  const int *tri_body;    /* ntri body ids */
  int nbodies;
  const char *const *body_names; /* nbodies names for OBJ objects */
} sim_frame_view;

/* Optional scenery for the preview (the obstacles): a triangle soup, borrowed. Kept apart
   from sim_frame_view so that its positional initialisers stay complete. */
typedef struct sim_scenery_view {
  int nsv, nst;
  const double *sx; /* 3 nsv positions */
  const int *stri;  /* 3 nst indices into sx */
} sim_scenery_view;

/* Atomic writes: open PATH.tmp.PID, write, then commit renames it over PATH. On any failure
   the temporary file is removed and PATH is untouched. */
typedef struct sim_atomic_file {
  FILE *f;
  char path[1024];
  char tmp[1100];
} sim_atomic_file;
int sim_atomic_open(sim_atomic_file *af, const char *path, const char *mode, sim_status *st);
int sim_atomic_commit(sim_atomic_file *af, sim_status *st); /* fclose + fsync-free rename */
void sim_atomic_abort(sim_atomic_file *af);
/* Whole-buffer convenience. */
int sim_write_file_atomic(const char *path, const void *data, size_t bytes, sim_status *st);
/* Whole file `path` into *buf (NUL-terminated, *len bytes before the NUL; len may be NULL);
 *buf NULL (and SIM_OK) where it does not exist and `optional`; the caller frees *buf. */
int sim_read_file(const char *path, int optional, char **buf, size_t *len, sim_status *st);
/* mkdir -p */
int sim_mkdirs(const char *dir, sim_status *st);

/* Legacy VTK, BINARY (big-endian), UNSTRUCTURED_GRID of tets (cell type 10): POINT_DATA
   velocity (vectors) and body_id (int); CELL_DATA energy_density (double). */
int sim_write_vtk(const char *path, const sim_frame_view *f, sim_status *st);
/* A frame sim_write_vtk wrote, read back (simctl run --resume, core/io/vtk_read.c): its nv
   positions into x and velocities into v (3 nv each) and each vertex's body id into body (nv),
   to the bit; SIM_ERR_IO naming the file where it is not such a frame, is cut short or holds
   another number of points. */
int sim_read_vtk_frame(const char *path, int nv, double *x, double *v, int *body, sim_status *st);
/* ParaView ".vtk.series" JSON listing file names (relative) and times. */
int sim_write_vtk_series(const char *path, int n, const char *const *files, const double *times,
                         sim_status *st);
/* Wavefront OBJ of the surface triangles, one "o NAME" object per body, 1-based indices
   local to the file; only vertices used by surface triangles are written. */
int sim_write_obj(const char *path, const sim_frame_view *f, sim_status *st);

typedef struct sim_camera {
  double eye[3], target[3], up[3];
  double fov_deg;
} sim_camera;
/* A camera that frames the bounding box of the view's surface from the front-right above. */
void sim_camera_fit(const sim_frame_view *f, sim_camera *cam);
/* The same, framing the surface and the scenery s (NULL: none) together. */
void sim_camera_fit_scenery(const sim_frame_view *f, const sim_scenery_view *s,
                            sim_camera *cam);
/* Shaded preview of the surface triangles: z-buffered rasteriser, Lambert + ambient light,
   one colour per body, light grey background; written as 8-bit RGB PNG with libpng. */
int sim_render_png(const char *path, const sim_frame_view *f, const sim_camera *cam, int width,
                   int height, sim_status *st);
/* The same with scenery s (NULL: none) drawn in grey (SIM_RENDER_SCENERY shaded like the
   bodies, two-sided, the same z-buffer); cam NULL fits both. Scenery indices out of
   [0, nsv) are refused (SIM_ERR_INTERNAL). */
int sim_render_png_scenery(const char *path, const sim_frame_view *f, const sim_scenery_view *s,
                           const sim_camera *cam, int width, int height, sim_status *st);
/* Grey level (R = G = B) of the preview background. */
enum { SIM_RENDER_BG = 230 };
/* Grey level of lit scenery before shading (at most this; R = G = B). */
enum { SIM_RENDER_SCENERY = 185 };
/* Checks the view's counts, required arrays and index ranges (tet / tri vertices in [0, nv),
   tri_body in [0, nbodies)); SIM_ERR_INTERNAL naming the first bad entry. Every writer above
   calls it before opening its file. */
int sim_frame_view_check(const sim_frame_view *f, sim_status *st);

/* ---- CSV tables (timing.csv, memory.csv): rows kept as text, written in one go ---- */
typedef struct sim_csv sim_csv;
/* header: the column names joined by commas ("frame,time,collision"); NULL and
   SIM_ERR_MEMORY / SIM_ERR_INTERNAL in st on failure. */
sim_csv *sim_csv_create(const char *header, sim_status *st);
/* A row of numbers: a whole number in full, a column marked by sim_csv_exact so that it reads
   back to the bit, any other to 6 significant digits ("%.6g"); NaN is written as an empty
   field. n must equal the number of columns. */
int sim_csv_add_row(sim_csv *t, const double *values, int n, sim_status *st);
/* Column col (0-based, below 64) printed exactly from here on (a simulated time). */
void sim_csv_exact(sim_csv *t, int col);
/* A row of text fields (key,value tables); a field holding a comma, quote or newline is
   quoted as RFC 4180 says. NULL fields are empty. */
int sim_csv_add_text_row(sim_csv *t, const char *const *fields, int n, sim_status *st);
int sim_csv_cols(const sim_csv *t);
int sim_csv_rows(const sim_csv *t);   /* data rows, header not counted */
const char *sim_csv_text(const sim_csv *t); /* the whole table, header first */
/* Writes the table to path atomically. */
int sim_csv_write(const sim_csv *t, const char *path, sim_status *st);
void sim_csv_destroy(sim_csv *t);

#endif
