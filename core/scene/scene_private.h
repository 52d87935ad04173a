/* SPDX-License-Identifier: MIT */
/* Private to core/scene: JSON paths, the error context, the text locator and shared helpers. */
#ifndef SIM_SCENE_PRIVATE_H
#define SIM_SCENE_PRIVATE_H
#include <cjson/cJSON.h>
#include <stddef.h>

#include "scene.h"

#define SCENE_PATH_DEPTH 16

/* One step of a JSON path: an object key (the occ-th occurrence, for duplicate keys) or,
   when key is NULL, an array index. */
typedef struct scene_seg {
  const char *key;
  int index;
  int occ;
} scene_seg;

typedef struct scene_path {
  int n; /* may exceed SCENE_PATH_DEPTH; only the first SCENE_PATH_DEPTH are stored */
  scene_seg seg[SCENE_PATH_DEPTH];
} scene_path;

/* One applied --set override: its text as given and the path it replaced. */
typedef struct scene_override {
  const char *text; /* "PATH=VALUE" */
  char *buf;        /* owned: PATH with '.' replaced by '\0'; path keys point into it */
  scene_path path;
} scene_override;

/* Where errors go and how they are located: the scene text (NULL for a scene built in code),
   the overrides applied to it, and the path of the value being read or checked. */
typedef struct scene_ctx {
  const char *file;
  const char *text;
  const scene_override *ovr;
  int novr;
  sim_status *st;
  scene_path path;
} scene_ctx;

/* ---- scene_error.c ---- */
void scene_push_key(scene_ctx *c, const char *key);
void scene_push_index(scene_ctx *c, int index);
void scene_pop(scene_ctx *c);
/* Record "LOCATION: PATH: what" for the current path (at_key: point at the key, not the
   value) and return SIM_ERR_SCENE. */
int scene_fail(scene_ctx *c, int at_key, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* "missing required key \"KEY\"" and fmt's text after it, at the current path; named after
   the override that took the key away (--set PATH.KEY=null) where one did. */
int scene_fail_missing(scene_ctx *c, const char *key, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Whether the current path plus `key` is written in the text or set by an override. */
int scene_given(const scene_ctx *c, const char *key);
void scene_path_format(const scene_path *p, char *buf, size_t cap);
/* Shortest decimal that reads back as v. */
void scene_fmt_num(double v, char buf[40]);
/* Printable copy of user text for messages (control bytes as '?', long text cut). */
void scene_quote(const char *s, char *buf, size_t cap);
/* Closest of `allowed` to `key` (Levenshtein <= 2, or a prefix), or NULL; used for unknown
   keys and unknown enum values alike. */
const char *scene_suggest(const char *key, const char *const *allowed, int n);

/* ---- json_locate.c ---- */
/* Strict RFC 8259 check of NUL-terminated text; 0 when valid, else -1 with *err_off and msg. */
int scene_json_check(const char *text, size_t *err_off, char *msg, size_t cap);
/* Offset in `text` (valid JSON) where the value at `p` starts (or its key, if at_key and the
   last step is a key). Stops at the deepest step found; *matched says how many matched. */
size_t scene_json_locate(const char *text, const scene_path *p, int at_key, int *matched);
void scene_line_col(const char *text, size_t off, int *line, int *col);

/* ---- scene_override.c ---- */
/* Apply "PATH=VALUE" to root; fills *rec (free with scene_override_free). */
int scene_override_apply(cJSON *root, const char *text, scene_override *rec, sim_status *st);
void scene_override_free(scene_override *rec);

/* ---- scene_json_read.c: typed reads from cJSON into struct fields ---- */
const char *scene_type_name(const cJSON *v);
const cJSON *scene_item(const cJSON *obj, const char *key);
/* Reject unknown and duplicate keys; `note` (may be NULL) follows "unknown key "x"". */
int scene_keys(scene_ctx *c, const cJSON *obj, const char *const *allowed, int n, const char *note);
int scene_rd_num(scene_ctx *c, const cJSON *obj, const char *key, double *out);
int scene_rd_int(scene_ctx *c, const cJSON *obj, const char *key, int *out);
int scene_rd_vec(scene_ctx *c, const cJSON *obj, const char *key, double *out, int n);
int scene_rd_ivec(scene_ctx *c, const cJSON *obj, const char *key, int *out, int n);
/* An array of at most `max` rows, each an array of `width` numbers, into out[row * width + k];
   sets the row count when it reads; `what` names the rows in messages ("points [x, y, z]"). */
int scene_rd_rows(scene_ctx *c, const cJSON *obj, const char *key, double *out, int width, int max,
                  int *nrows, const char *what);
int scene_rd_str(scene_ctx *c, const cJSON *obj, const char *key, char *out, size_t cap);
int scene_rd_enum(scene_ctx *c, const cJSON *obj, const char *key, const char *const *names, int n,
                  int *out);
/* The object at key (NULL when absent); an error when present but not an object. */
int scene_rd_obj(scene_ctx *c, const cJSON *obj, const char *key, const cJSON **out);
int scene_num_value(scene_ctx *c, const cJSON *v, double *out);
int scene_int_value(scene_ctx *c, const cJSON *v, int *out);
/* "\"a\", \"b\", \"c\"" */
void scene_names_list(const char *const *names, int n, char *buf, size_t cap);

/* 0/1 from true/false. */
int scene_rd_bool(scene_ctx *c, const cJSON *obj, const char *key, int *out);

/* ---- scene_load.c ---- */
/* The pin-script step list at obj.script (pins and obstacles alike; `owner` names the
   owner in the too-many-steps message: "pin", "obstacle"). */
int scene_load_script(scene_ctx *c, const cJSON *obj, const char *owner, sim_pin_step *steps,
                      int *nsteps);
/* v / |v| unless v is zero (validation reports that) or already unit. */
void scene_normalise(double v[3]);

/* ---- scene_load_body.c ---- */
int scene_load_body(scene_ctx *c, const cJSON *o, int index, sim_body_def *b);
int scene_load_transform(scene_ctx *c, const cJSON *t, sim_transform_def *d);
/* A mesh path relative to the scene file's directory, made absolute when the file exists. */
int scene_resolve_file(scene_ctx *c, const char *rel, char *out, size_t cap);

/* ---- scene_load_contact.c: top-level "contact" and "obstacles" (after the bodies) ---- */
int scene_load_contact(scene_ctx *c, const cJSON *root, sim_scene *s);

/* ---- scene_check.c: validation helpers ---- */
enum { SCENE_NONE, SCENE_GT, SCENE_GE, SCENE_LT, SCENE_LE }; /* bound operators */
/* v against lower bound (GT/GE lo) and upper bound (LT/LE hi); the message names the bound
   that failed: "expected a number > 0, got -5". key may be NULL (the current path). */
int scene_chk_num(scene_ctx *c, const char *key, double v, int lop, double lo, int hip, double hi);
int scene_chk_int(scene_ctx *c, const char *key, int v, int lo, int hi);
int scene_chk_finite(scene_ctx *c, const char *key, const double *v, int n);
int scene_chk_nonzero(scene_ctx *c, const char *key, const double *v);
int scene_chk_enum(scene_ctx *c, const char *key, int v, const char *const *names, int n);
/* A name used in output paths: 1..63 of letters, digits, '_', '-', '.'. */
int scene_chk_name(scene_ctx *c, const char *name);
int scene_chk_transform(scene_ctx *c, const sim_transform_def *t);
int scene_chk_script(scene_ctx *c, const sim_pin_step *steps, int nsteps);
/* The array s.key of n elements: lo <= n <= hi ("expected 0..16 pins, got 17" at key), then
   check(c, s, i) for each element i with the path at key.i. */
typedef int (*scene_elem_check)(scene_ctx *c, const sim_scene *s, int i);
int scene_chk_array(scene_ctx *c, const sim_scene *s, const char *key, int n, int lo, int hi,
                    scene_elem_check check);

/* ---- scene_validate_contact.c ---- */
int scene_validate_contact(scene_ctx *c, const sim_scene *s);

/* ---- scene_validate.c ---- */
int scene_validate_ctx(scene_ctx *c, const sim_scene *s);

/* ---- scene_defaults.c: names of enum values, indexed by the enum ---- */
#define SCENE_MESH_COUNT 7 /* sim_mesh_source_kind values */
extern const char *const scene_global_names[SIM_GLOBAL_COUNT];
extern const char *const scene_device_names[3];
extern const char *const scene_precision_names[2];
extern const char *const scene_ordering_names[SIM_ORDER_COUNT];
extern const char *const scene_mesh_names[SCENE_MESH_COUNT];
extern const char *const scene_model_names[SIM_MAT_COUNT];
extern const char *const scene_bending_names[SIM_BEND_COUNT];
extern const char *const scene_lumping_names[2];
extern const char *const scene_step_names[3];
extern const char *const scene_pin_mode_names[SIM_PIN_MODE_COUNT];
extern const char *const scene_format_names[4]; /* bit k of formats */
extern const char *const scene_async_names[SIM_ASYNC_COUNT];
extern const char *const scene_ncp_names[SIM_SCENE_NCP_COUNT];
extern const char *const scene_precond_names[SIM_SCENE_PRECOND_COUNT];
extern const char *const scene_delassus_names[SIM_SCENE_DELASSUS_COUNT];
extern const char *const scene_form_names[SIM_SCENE_FORM_COUNT];
extern const char *const scene_cr_pc_names[SIM_SCENE_CR_PC_COUNT];
extern const char *const scene_fjac_names[SIM_SCENE_FJAC_COUNT];
extern const char *const scene_obstacle_names[SIM_OBST_COUNT];
/* Copy src into dst[cap], zero-filling the rest (structs stay memcmp-comparable). */
void scene_set_str(char *dst, size_t cap, const char *src);

/* Limits shared by the loader and validation. */
#define SCENE_FRAMES_MAX 10000000
#define SCENE_DT_MIN 1e-9 /* s: below, a step's motion drowns in the positions' rounding */
#define SCENE_LG_MAX 100000
/* OpenMP threads: libgomp fails to create 32,768 and 65,536 crashed a run */
#define SCENE_THREADS_MAX 1024
#define SCENE_SUBDIV_MAX 7
#define SCENE_SEGMENTS_MAX 1024
#define SCENE_BOX_SEGMENTS_MAX 200
#define SCENE_RINGS_MAX 1024
#define SCENE_PNG_MIN 16
#define SCENE_PNG_MAX 8192
/* a bar's vertices: its hexes (fewer) times 24 tetrahedron corners stay within an int */
#define SCENE_BAR_VERTICES_MAX 80000000.0
#define SCENE_CLOTH_VERTICES_MAX 25000000.0
#define SCENE_CR_ITERATIONS_MAX 1000
#define SCENE_NEWTON_STEPS_MAX 100
#define SCENE_LINE_SEARCH_MAX 30
#define SCENE_REDETECT_MAX 10

#endif
