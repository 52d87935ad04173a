/* SPDX-License-Identifier: MIT */
/* An earlier run's output folder read back for `simctl run --resume`. */
#include "resume.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../base/alloc.h"
#include "../contact/world.h"
#include "../io/output.h"

/* The frame number of a series entry's name NNNNN.vtk (five digits or more), else -1. */
static int vtk_frame(const char *name) {
  size_t len = strlen(name), d = 0;
  if (len < 9 || strcmp(name + len - 4, ".vtk") != 0) return -1;
  long f = 0;
  for (; d < len - 4; d++) {
    if (name[d] < '0' || name[d] > '9' || f > 100000000) return -1;
    f = 10 * f + (name[d] - '0');
  }
  return (int)f;
}

static int add_entry(sim_resume *r, const char *name, double t, sim_status *st) {
  char **n = sim_realloc(r->names, sizeof(char *) * (size_t)(r->nseries + 1));
  if (n) r->names = n;
  double *tt = n ? sim_realloc(r->times, sizeof(double) * (size_t)(r->nseries + 1)) : NULL;
  if (tt) r->times = tt;
  char *copy = tt ? sim_malloc(strlen(name) + 1) : NULL;
  if (!copy) return sim_fail(st, SIM_ERR_MEMORY, "out of memory (resume)");
  strcpy(copy, name);
  r->names[r->nseries] = copy;
  r->times[r->nseries++] = t;
  return SIM_OK;
}

static int no_series(const char *path, sim_status *st) {
  return sim_fail(st, SIM_ERR_IO,
                  "%s: not found; --resume goes on from a run's last VTK frame (output.formats "
                  "with \"vtk\")",
                  path);
}

int sim_resume_present(const char *dir, sim_status *st) {
  char path[SIM_PATH_MAX + 64];
  snprintf(path, sizeof path, "%s/frames/frames.vtk.series", dir);
  struct stat sb;
  return stat(path, &sb) == 0 ? SIM_OK : no_series(path, st);
}

/* The series' entries: the last one's frame and time, and every entry up to it. */
static int read_series(const char *path, sim_resume *r, sim_status *st) {
  char *text;
  int rc = sim_read_file(path, 1, &text, NULL, st);
  if (!rc && !text) rc = no_series(path, st);
  if (rc) return rc;
  cJSON *root = cJSON_Parse(text);
  sim_free(text);
  const cJSON *files = cJSON_GetObjectItemCaseSensitive(root, "files");
  int n = cJSON_IsArray(files) ? cJSON_GetArraySize(files) : -1;
  rc = n > 0 ? SIM_OK
             : sim_fail(st, SIM_ERR_IO,
                        "%s: expected a ParaView series with \"files\" listing "
                        "the frames' VTK files",
                        path);
  int last = -1;
  for (int i = 0; !rc && i < n; i++) {
    const cJSON *e = cJSON_GetArrayItem(files, i);
    const cJSON *name = cJSON_GetObjectItemCaseSensitive(e, "name");
    const cJSON *time = cJSON_GetObjectItemCaseSensitive(e, "time");
    int f = cJSON_IsString(name) ? vtk_frame(name->valuestring) : -1;
    char after[48] = ""; /* the frames in order */
    if (i) snprintf(after, sizeof after, " of a frame after %d", last);
    if (f <= last || !cJSON_IsNumber(time))
      rc = sim_fail(st, SIM_ERR_IO,
                    "%s: files[%d]: expected {\"name\": \"NNNNN.vtk\", \"time\": T}%s", path, i,
                    after);
    else
      rc = add_entry(r, name->valuestring, time->valuedouble, st);
    last = f;
  }
  cJSON_Delete(root);
  if (!rc) r->frame = last, r->t = r->times[r->nseries - 1];
  return rc;
}

/* timing.csv's rows up to r->frame (none where there is no timing.csv). */
static int read_timing(const char *path, const char *header, sim_resume *r, sim_status *st) {
  char *text;
  int rc = sim_read_file(path, 1, &text, NULL, st);
  if (rc || !text) return rc;
  size_t hl = strlen(header);
  if (strncmp(text, header, hl) != 0 || text[hl] != '\n') {
    sim_free(text);
    return sim_fail(st, SIM_ERR_IO, "%s: line 1: expected this simctl's header (%.40s...)", path,
                    header);
  }
  int lineno = 1;
  for (char *p = text + hl + 1, *nl; !rc && *p; p = nl + 1) {
    nl = strchr(p, '\n');
    lineno++;
    if (!nl) {
      rc = sim_fail(st, SIM_ERR_IO, "%s: line %d: cut short (no newline)", path, lineno);
      break;
    }
    *nl = '\0';
    char *end;
    long f = strtol(p, &end, 10);
    if (end == p || *end != ',') {
      rc = sim_fail(st, SIM_ERR_IO, "%s: line %d: expected a frame number first", path, lineno);
      break;
    }
    if (f > r->frame) continue;
    char **rows = sim_realloc(r->rows, sizeof(char *) * (size_t)(r->nrows + 1));
    char *copy = rows ? sim_malloc(strlen(p) + 1) : NULL;
    if (rows) r->rows = rows;
    if (!copy)
      rc = sim_fail(st, SIM_ERR_MEMORY, "out of memory (resume)");
    else
      r->rows[r->nrows++] = strcpy(copy, p);
  }
  sim_free(text);
  return rc;
}

/* The last frame's state file, frames/NNNNN.state beside its NNNNN.vtk, where there is one. */
static int read_state(const sim_model *m, const char *dir, sim_resume *r, sim_status *st) {
  char path[SIM_PATH_MAX + 64];
  const char *vtk = r->names[r->nseries - 1];
  snprintf(path, sizeof path, "%s/frames/%.*s.state", dir, (int)strlen(vtk) - 4, vtk);
  struct stat sb;
  if (stat(path, &sb) != 0 && errno == ENOENT) return SIM_OK;
  int rc =
      sim_state_file_read(path, m, r->frame, r->t, sim_world_needed(m), &r->state, r->figures, st);
  r->have_state = rc == SIM_OK;
  return rc;
}

int sim_resume_read(const sim_model *m, const char *dir, const char *timing_header, sim_resume *r,
                    sim_status *st) {
  memset(r, 0, sizeof *r);
  const sim_scene *sc = m->scene;
  char path[SIM_PATH_MAX + 64];
  snprintf(path, sizeof path, "%s/frames/frames.vtk.series", dir);
  int rc = read_series(path, r, st);
  if (!rc && r->frame >= sc->solver.frames)
    rc = sim_fail(st, SIM_ERR_USAGE,
                  "%s: --resume: the run there reached frame %d, and the scene runs to frame %d; "
                  "give --frames N above %d to go on",
                  dir, r->frame, sc->solver.frames, r->frame);
  if (!rc && r->t != r->frame * m->h)
    rc = sim_fail(st, SIM_ERR_USAGE,
                  "%s: frame %d is at time %.17g, not %d x solver.dt (%.17g): the run there had "
                  "another time step",
                  path, r->frame, r->t, r->frame, m->h);
  int *body = NULL;
  if (!rc) {
    r->q = SIM_NEW(double, 3 * (size_t)m->n + 1);
    r->v = SIM_NEW(double, 3 * (size_t)m->n + 1);
    body = SIM_NEW(int, (size_t)m->n + 1);
    if (!r->q || !r->v || !body) rc = sim_fail(st, SIM_ERR_MEMORY, "out of memory (resume)");
  }
  if (!rc) {
    snprintf(path, sizeof path, "%s/frames/%s", dir, r->names[r->nseries - 1]);
    rc = sim_read_vtk_frame(path, m->n, r->q, r->v, body, st);
  }
  for (int i = 0; !rc && i < m->n; i++)
    if (body[i] != m->vert_body[i])
      rc = sim_fail(st, SIM_ERR_IO,
                    "%s: vertex %d is in body %d, but in the scene's body %d: a frame of another "
                    "scene",
                    path, i, body[i], m->vert_body[i]);
  sim_free(body);
  if (!rc) rc = read_state(m, dir, r, st);
  if (!rc) {
    snprintf(path, sizeof path, "%s/timing.csv", dir);
    rc = read_timing(path, timing_header, r, st);
  }
  if (rc) sim_resume_free(r);
  return rc;
}

void sim_resume_free(sim_resume *r) {
  for (int i = 0; i < r->nseries; i++) sim_free(r->names[i]);
  for (int i = 0; i < r->nrows; i++) sim_free(r->rows[i]);
  sim_free(r->names);
  sim_free(r->times);
  sim_free(r->rows);
  sim_free(r->q);
  sim_free(r->v);
  sim_step_state_free(&r->state);
  memset(r, 0, sizeof *r);
}
