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
  int ntet;
  const int *tet;         /* 4 * ntet */
  const double *tet_energy_density; /* ntet, J/m^3 (may be NULL: zeros) */
  int ntri;
  const int *tri;         /* 3 * ntri surface triangles (global vertex ids), outward */
  const int *tri_body;    /* ntri body ids */
  int nbodies;
  const char *const *body_names; /* nbodies names for OBJ objects */
} sim_frame_view;

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
/* mkdir -p */
int sim_mkdirs(const char *dir, sim_status *st);

/* Legacy VTK, BINARY (big-endian), UNSTRUCTURED_GRID of tets (cell type 10): POINT_DATA
   velocity (vectors) and body_id (int); CELL_DATA energy_density (double). */
int sim_write_vtk(const char *path, const sim_frame_view *f, sim_status *st);
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
/* Shaded preview of the surface triangles: z-buffered rasteriser, Lambert + ambient light,
   one colour per body, light grey background; written as 8-bit RGB PNG with libpng. */
int sim_render_png(const char *path, const sim_frame_view *f, const sim_camera *cam, int width,
                   int height, sim_status *st);

#endif
