/* SPDX-License-Identifier: MIT */
/* Surface and tetrahedral meshes: generators, readers, checks, TetGen front end. */
#ifndef SIM_MESH_H
#define SIM_MESH_H
#include <stddef.h>

#include "../base/status.h"

/* Closed or open triangle surface. Indices are 0-based, flat arrays. */
typedef struct sim_surface {
  int nv, nt;
  double *x; /* 3 * nv */
  int *tri;  /* 3 * nt, counter-clockwise seen from outside */
} sim_surface;

/* Tetrahedral mesh, positively oriented tets. */
typedef struct sim_tetmesh {
  int nv, ntet;
  double *x; /* 3 * nv */
  int *tet;  /* 4 * ntet */
} sim_tetmesh;

void sim_surface_free(sim_surface *s); /* frees arrays, zeroes the struct */
void sim_tetmesh_free(sim_tetmesh *m);

/* ---- procedural generators (core/mesh/gen_*.c) ---- */
/* Box [lo, hi] split into nx*ny*nz vertices (>= 2 each); every hex into 6 tets. */
int sim_gen_box_tets(const double lo[3], const double hi[3], const int nverts[3], sim_tetmesh *out,
                     sim_status *st);
int sim_gen_icosphere(double radius, int subdivisions, sim_surface *out, sim_status *st);
/* Closed box surface, each face split into segs x segs quads (2 triangles each). */
int sim_gen_box_surface(const double lo[3], const double hi[3], int segs, sim_surface *out,
                        sim_status *st);
/* Closed cylinder along y, centred at the origin. */
int sim_gen_cylinder(double radius, double height, int segments, int rings, sim_surface *out,
                     sim_status *st);
/* Capsule along y: a cylinder of the given height plus two hemispheres. */
int sim_gen_capsule(double radius, double height, int segments, int rings, sim_surface *out,
                    sim_status *st);
/* Square cloth in the x-z plane of side `size`, centred at the origin, with a grid of
   k x k vertices where k*k is the square nearest target_vertices (open surface). */
int sim_gen_cloth(double size, int target_vertices, sim_surface *out, sim_status *st);
/* Rectangular cloth of size[0] x size[1] (x, z) with nx x nz grid vertices, centred at the
   origin, normal +y. cross = 0: two triangles per cell; cross = 1: a centre vertex per cell and
   four triangles around it (nx nz + (nx-1)(nz-1) vertices, 4 (nx-1)(nz-1) triangles). */
int sim_gen_cloth_grid(const double size[2], int nx, int nz, int cross, sim_surface *out,
                       sim_status *st);

/* ---- readers (core/mesh/read_*.c); `path` appears in every error message ---- */
int sim_read_surface(const char *path, sim_surface *out, sim_status *st); /* by extension */
int sim_read_obj(const char *path, sim_surface *out, sim_status *st);
int sim_read_off(const char *path, sim_surface *out, sim_status *st);
int sim_read_stl(const char *path, sim_surface *out, sim_status *st);     /* ascii or binary */
int sim_read_tetmesh(const char *path, sim_tetmesh *out, sim_status *st); /* by extension */
/* path of the .node file; the .ele beside it (same stem) is read too */
int sim_read_tetgen(const char *node_path, sim_tetmesh *out, sim_status *st);
int sim_read_msh(const char *path, sim_tetmesh *out, sim_status *st); /* Gmsh 4.1 ascii */
int sim_read_vtk(const char *path, sim_tetmesh *out, sim_status *st); /* legacy, ascii/binary */

/* ---- checks ---- */
/* Largest coordinate magnitude the checks accept: the cube of the bounding box diagonal that
   scales the degeneracy tests (and the volumes) stays finite below it. */
#define SIM_MESH_COORD_MAX 1e100

/* Fails with a message naming what is wrong (open edges, non-manifold edges, degenerate
   triangles, inconsistent orientation) and where (first offending edge / triangle). */
int sim_surface_check_closed(const sim_surface *s, const char *name, sim_status *st);
/* Orient every tet positively; fails on degenerate (zero-volume) tets. */
int sim_tetmesh_orient(sim_tetmesh *m, const char *name, sim_status *st);
/* Boundary triangles of a tet mesh (faces used by one tet), oriented outward, in order of
   (tet, local face); *tri is sim_malloc'ed (free with sim_free), NULL when *ntri is 0. Fails
   (a message starting with name) on a vertex index out of range, on a face of three or more
   tets, and on a face whose two tets lie on the same side of it (they overlap: a folded mesh;
   each tet's own sign is taken into account, so this holds before sim_tetmesh_orient too). */
int sim_tetmesh_boundary(const sim_tetmesh *m, const char *name, int *ntri, int **tri,
                         sim_status *st);
/* Drops vertices no tet uses (renumbering, order kept); the tet readers for .msh and .vtk,
   which skip other element types, and sim_tetgen call it. */
int sim_tetmesh_compact(sim_tetmesh *m, sim_status *st);

/* ---- TetGen (core/mesh/tetgen_run.c) ---- */
typedef struct sim_tetgen_opts {
  double quality;        /* radius-edge bound for -q (0 = no quality switch) */
  double max_volume;     /* -a bound (0 = none) */
  const char *extra;     /* extra switches appended verbatim (validated: letters/digits/./) */
  const char *cache_dir; /* NULL = no cache */
  const char *max_volume_key; /* what to raise, as the caller names it ("--max-volume", a
                                 scene's key); NULL = "max_volume" */
} sim_tetgen_opts;
/* The first character of extra switches that simctl refuses, else 0: anything but letters,
   digits, '.' and '/', the switches that change the inputs read or the outputs written
   (SIM_TETGEN_REFUSED), and q and a, which quality and max_volume set (a later q below 1
   would let TetGen run without end). */
#define SIM_TETGEN_REFUSED "rNEIdimwRhqa"
/* Most tets a max_volume may ask for: enclosed volume / max_volume above it is refused before
   TetGen runs (it would exhaust memory first). */
#define SIM_TETGEN_MAX_TETS 1e7
char sim_tetgen_bad_switch(const char *extra);
/* Writes the surface as .smesh in a temporary directory, runs the `tetgen` program as a
   child process (a crash becomes an error), reads .node/.ele back. Results are cached under
   cache_dir keyed by a hash of the surface bytes and the switches. The program is
   $SIMCTL_TETGEN, else a `tetgen` beside the running executable (a bundle, `make bundle`),
   else the build's SIMCTL_TETGEN, else "tetgen" on PATH. The surface must
   pass sim_surface_check_closed, and max_volume must not ask for more than SIM_TETGEN_MAX_TETS
   tets. The tets' volume must equal the enclosed volume (else the surface had a cavity or
   nested shells, which TetGen fills). A failed run keeps its temporary directory (named in the
   message) for `tetgen -d`; a cache that cannot be written is skipped silently. */
int sim_tetgen(const sim_surface *s, const sim_tetgen_opts *o, const char *name, sim_tetmesh *out,
               sim_status *st);

/* The tetgen program sim_tetgen runs (the order above; BUF, CAP hold a path found beside the
   executable), and in *FROM where it was taken from, in words. */
const char *sim_tetgen_program(char *buf, size_t cap, const char **from);

/* Writes NODE (a path ending in .node) and the .ele beside it, each atomically, 0-based. */
int sim_write_tetgen(const char *node_path, const sim_tetmesh *m, sim_status *st);
/* $SIMCTL_CACHE_DIR, else $XDG_CACHE_HOME/simctl/tetgen, else $HOME/.cache/simctl/tetgen;
   NULL when none of these is set. Returns a static buffer (not thread-safe). */
const char *sim_tetgen_default_cache_dir(void);

/* ---- measures (core/mesh/mesh.c) ---- */
double sim_surface_volume(const sim_surface *s); /* enclosed volume, > 0 when outward */
double sim_tetmesh_volume(const sim_tetmesh *m); /* sum of signed tet volumes */

/* ---- text scanning shared by the readers (core/mesh/mesh_text.c; internal) ---- */
typedef struct sim_mesh_cursor {
  const char *path;
  const char *p, *end; /* unread input */
  int line;            /* 1-based line of p */
  char comment;        /* starts a comment running to the end of the line; 0 = none */
} sim_mesh_cursor;
/* Whole file into a NUL-terminated sim_malloc'ed buffer ("PATH: cannot open: ..."). */
int sim_mesh_load_file(const char *path, char **buf, size_t *len, sim_status *st);
/* 3 where buf starts with a UTF-8 byte order mark, else 0 (the cursor starts after it). */
size_t sim_mesh_bom_len(const char *buf, size_t len);
void sim_mesh_cursor_init(sim_mesh_cursor *c, const char *path, const char *buf, size_t len,
                          char comment);
/* Next whitespace-separated token, skipping comments and counting lines; 0 at the end. */
int sim_mesh_token(sim_mesh_cursor *c, const char **tok, int *len);
/* Skips blanks and a comment on the current line; 1 when the line (or input) ends there. */
int sim_mesh_at_eol(sim_mesh_cursor *c);
/* Before field K (0-based) of N that must share a line with what came before it: fails
   "PATH:LINE: expected N WHAT, found K" when the line ends there, so that a short line does
   not borrow numbers from the next one; at the end of the input it leaves the "end of file"
   message to the read that follows. */
int sim_mesh_fields(sim_mesh_cursor *c, int k, int n, const char *what, sim_status *st);
/* After the last of N records (WHAT) the header counted, only blanks and comments may follow:
   "PATH:LINE: expected end of file after N WHAT (the header's count), found 'TOK'". */
int sim_mesh_expect_end(sim_mesh_cursor *c, int n, const char *what, sim_status *st);
/* Consumes the rest of the current line including its newline. */
void sim_mesh_skip_line(sim_mesh_cursor *c);
/* Failure "PATH:LINE: ..." at the cursor's line. */
int sim_mesh_fail(const sim_mesh_cursor *c, sim_status *st, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Parse the next token: "PATH:LINE: expected WHAT, found 'TOK'" (or "... end of file"). */
int sim_mesh_read_double(sim_mesh_cursor *c, double *v, const char *what, sim_status *st);
int sim_mesh_read_long(sim_mesh_cursor *c, long long *v, const char *what, sim_status *st);
/* Integer in [lo, hi]: "PATH:LINE: WHAT N out of range (expected LO..HI)". */
int sim_mesh_read_int(sim_mesh_cursor *c, int *v, long long lo, long long hi, const char *what,
                      sim_status *st);
/* Next token must equal WORD: "PATH:LINE: expected 'WORD', found 'TOK'". */
int sim_mesh_expect(sim_mesh_cursor *c, const char *word, sim_status *st);
/* Writes TOK (len bytes) for a message: at most 40 printable characters. */
void sim_mesh_quote(char out[48], const char *tok, int len);
/* Grows *p (elem bytes each) to hold at least need elements; 0 on success. */
int sim_mesh_grow(void **p, int *cap, long long need, size_t elem);
/* A polygon of np corners as np - 2 triangles fanned from its first corner, appended to tri
   (room for them made by the caller) at *nt. */
void sim_mesh_fan(const int *poly, int np, int *tri, int *nt);
/* A surface reader's end: with rc != SIM_OK frees x and tri, else hands them to *out; rc. */
int sim_mesh_surface_done(int rc, int nv, double *x, int nt, int *tri, sim_surface *out);

#endif
