/* SPDX-License-Identifier: MIT */
/* Scene loader tests: a full scene, defaults, a table of bad scenes with exact messages,
   --set overrides, and the sim_scene_to_json round trip. Runs in tests/. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "check.h"
#include "base/mathx.h"
#include "model/model.h"
#include "scene/scene.h"

#include "scene_text.h"

static void test_full_scene(void) {
  sim_status st;
  sim_scene *s = &g_scene;
  int rc = sim_scene_load("data/scenes/loader_full.json", NULL, 0, s, &st);
  CHECK_INT(rc, SIM_OK);
  if (rc) fprintf(stderr, "  %s\n", st.msg);
  CHECK(strcmp(s->file, "data/scenes/loader_full.json") == 0);
  CHECK(strcmp(s->name, "loader_full") == 0);
  CHECK_NEAR(s->solver.dt, 0.005, 0);
  CHECK_INT(s->solver.frames, 250);
  CHECK_INT(s->solver.lg_iterations, 7);
  CHECK_INT(s->solver.global, SIM_GLOBAL_CHOLESKY);
  CHECK_INT(s->solver.device, SIM_DEVICE_CPU);
  CHECK_INT(s->solver.precision, SIM_PREC_FLOAT);
  CHECK_INT(s->solver.ordering, SIM_ORDER_AMD);
  CHECK_INT(s->solver.threads, 3);
  CHECK_NEAR(s->gravity[0], 0, 0);
  CHECK_NEAR(s->gravity[1], -9.81, 0);
  CHECK_NEAR(s->gravity[2], 0.5, 0);
  CHECK_INT(s->nbodies, 6);

  const sim_body_def *b = &s->bodies[0];
  CHECK(strcmp(b->name, "bar") == 0);
  CHECK_INT(b->mesh.kind, SIM_SRC_BAR);
  CHECK_NEAR(b->mesh.lo[0], -1, 0);
  CHECK_NEAR(b->mesh.lo[1], -2, 0);
  CHECK_NEAR(b->mesh.lo[2], -1, 0);
  CHECK_NEAR(b->mesh.hi[0], 1, 0);
  CHECK_NEAR(b->mesh.hi[1], 2, 0);
  CHECK_NEAR(b->mesh.hi[2], 1, 0);
  CHECK_INT(b->mesh.vertices[0], 14);
  CHECK_INT(b->mesh.vertices[1], 27);
  CHECK_INT(b->mesh.vertices[2], 14);
  CHECK_NEAR(b->transform.translate[1], 1, 0);
  CHECK_NEAR(b->transform.rotate_deg[0], 90, 0);
  CHECK_NEAR(b->transform.rotate_deg[1], 0, 0);
  CHECK_NEAR(b->transform.rotate_deg[2], -30, 0);
  CHECK_NEAR(b->transform.scale[0], 1, 0);
  CHECK_NEAR(b->transform.scale[1], 2, 0);
  CHECK_NEAR(b->transform.scale[2], 3, 0);
  CHECK_INT(b->material.model, SIM_MAT_ARAP);
  CHECK_NEAR(b->material.mass, 1000, 0);
  CHECK_INT(b->material.lumping, SIM_LUMP_UNIFORM); /* mass given */
  CHECK_NEAR(b->material.youngs_modulus, 1e9, 0);
  CHECK_NEAR(b->material.poisson_ratio, 0.45, 0);
  CHECK_NEAR(b->velocity[2], -1, 0);

  b = &s->bodies[1];
  CHECK(strcmp(b->name, "ball") == 0);
  CHECK_INT(b->mesh.kind, SIM_SRC_ICOSPHERE);
  CHECK_NEAR(b->mesh.radius, 0.5, 0);
  CHECK_INT(b->mesh.subdivisions, 2);
  CHECK_NEAR(b->mesh.tet_quality, 2, 0);
  CHECK_NEAR(b->mesh.tet_max_volume, 0.01, 0);
  for (int k = 0; k < 3; k++) CHECK_NEAR(b->transform.scale[k], 3, 0);
  CHECK_NEAR(b->material.density, 500, 0);
  CHECK_NEAR(b->material.mass, 0, 0);
  CHECK_INT(b->material.lumping, SIM_LUMP_UNIFORM); /* explicit */
  CHECK_NEAR(b->material.youngs_modulus, 1e4, 0);
  CHECK_NEAR(b->material.poisson_ratio, 0.4, 0);

  b = &s->bodies[2];
  CHECK_INT(b->mesh.kind, SIM_SRC_BOX);
  CHECK_NEAR(b->mesh.hi[1], 0.5, 0);
  CHECK_NEAR(b->mesh.hi[2], 2, 0);
  CHECK_INT(b->mesh.segments, 6);
  CHECK_NEAR(b->mesh.tet_quality, 0, 0);
  CHECK_INT(b->material.lumping, SIM_LUMP_VOLUME); /* default density */
  CHECK_NEAR(b->material.density, 1000, 0);

  b = &s->bodies[3];
  CHECK_INT(b->mesh.kind, SIM_SRC_CYLINDER);
  CHECK_NEAR(b->mesh.radius, 0.25, 0);
  CHECK_NEAR(b->mesh.height, 3, 0);
  CHECK_INT(b->mesh.segments, 12);
  CHECK_INT(b->mesh.rings, 4);

  b = &s->bodies[4];
  CHECK_INT(b->mesh.kind, SIM_SRC_CAPSULE);
  CHECK_NEAR(b->mesh.height, 0, 0);
  CHECK_INT(b->mesh.rings, 3);
  CHECK_NEAR(b->material.mass, 2, 0);
  CHECK_INT(b->material.lumping, SIM_LUMP_VOLUME); /* explicit with mass */
  CHECK_NEAR(b->material.poisson_ratio, -0.2, 0);

  b = &s->bodies[5];
  CHECK_INT(b->mesh.kind, SIM_SRC_FILE);
  /* resolved against the scene file's directory, then made absolute */
  const char *suffix = "/tests/data/scenes/meshes/unit_cube.obj";
  size_t pl = strlen(b->mesh.path), sl = strlen(suffix);
  CHECK(b->mesh.path[0] == '/' && pl > sl && strcmp(b->mesh.path + pl - sl, suffix) == 0);
  CHECK_NEAR(b->mesh.tet_quality, 1.414, 0);
  CHECK_NEAR(b->mesh.tet_max_volume, 0.5, 0);

  CHECK_INT(s->npins, 2);
  const sim_pin_def *p = &s->pins[0];
  CHECK_INT(p->body, 0);
  CHECK_NEAR(p->box[1], 1.99, 0);
  CHECK_NEAR(p->box[4], 2.1, 0);
  CHECK_INT(p->nsteps, 3);
  CHECK_INT(p->steps[0].kind, SIM_STEP_ROLLING);
  CHECK_NEAR(p->steps[0].axis[0], 0, 0);
  CHECK_NEAR(p->steps[0].axis[1], 1, 0); /* normalised */
  CHECK_NEAR(p->steps[0].center[2], 0.5, 0);
  CHECK_NEAR(p->steps[0].speed, -10, 0);
  CHECK_NEAR(p->steps[0].angle, 90, 0);
  CHECK_INT(p->steps[1].kind, SIM_STEP_WAIT);
  CHECK_NEAR(p->steps[1].duration, 2, 0);
  CHECK_INT(p->steps[2].kind, SIM_STEP_PULLING);
  CHECK_NEAR(p->steps[2].direction[0], 0.6, 1e-15);
  CHECK_NEAR(p->steps[2].direction[1], 0, 0);
  CHECK_NEAR(p->steps[2].direction[2], 0.8, 1e-15);
  CHECK_NEAR(p->steps[2].speed, 0.1, 0);
  CHECK_NEAR(p->steps[2].length, 1.5, 0);
  CHECK_NEAR(p->steps[2].ramp, 2, 0);
  CHECK_NEAR(p->steps[0].ramp, 0, 0); /* default */
  CHECK_INT(p->mode, SIM_PIN_ELIMINATE); /* default */
  CHECK_NEAR(p->compliance, 0, 0);
  CHECK_INT(s->pins[1].body, 3);
  CHECK_INT(s->pins[1].nsteps, 0);
  CHECK_INT(s->pins[1].mode, SIM_PIN_CONSTRAINT);
  CHECK_NEAR(s->pins[1].compliance, 0.002, 0);

  CHECK(strcmp(s->output.dir, "out/custom") == 0);
  CHECK_INT(s->output.every, 5);
  CHECK_INT(s->output.formats, SIM_OUT_CSV | SIM_OUT_PNG);
  CHECK_INT(s->output.png_width, 320);
  CHECK_INT(s->output.png_height, 200);
}

static void test_paper_scene(void) {
  sim_status st;
  sim_scene *s = &g_scene;
  int rc = sim_scene_load("data/scenes/twisting_bar.json", NULL, 0, s, &st);
  CHECK_INT(rc, SIM_OK);
  CHECK_INT(s->solver.frames, 810);
  CHECK_INT(s->nbodies, 1);
  CHECK_INT(
      s->bodies[0].mesh.vertices[0] * s->bodies[0].mesh.vertices[1] * s->bodies[0].mesh.vertices[2],
      5292);
  CHECK_NEAR(s->bodies[0].material.mass, 1000, 0);
  CHECK_INT(s->bodies[0].material.lumping, SIM_LUMP_UNIFORM);
  CHECK_INT(s->npins, 2);
  CHECK_NEAR(s->pins[0].steps[0].speed, 10, 0);
  CHECK_NEAR(s->pins[1].steps[0].speed, -10, 0);
  CHECK(strcmp(s->output.dir, "out/twisting_bar") == 0);
  CHECK_INT(s->output.every, 10);
}

/* Cloth, bending, the material models and thickness; chebyshev_rho with an exact solver. */
static void test_cloth_scene(void) {
  sim_status st;
  sim_scene *s = &g_scene;
  int rc = sim_scene_load("data/scenes/loader_cloth.json", NULL, 0, s, &st);
  CHECK_INT(rc, SIM_OK);
  if (rc) fprintf(stderr, "  %s\n", st.msg);
  CHECK_INT(s->solver.global, SIM_GLOBAL_CHOLESKY);
  CHECK_NEAR(s->solver.chebyshev_rho, 0.9, 0);
  CHECK_INT(s->nbodies, 3);

  const sim_body_def *b = &s->bodies[0];
  CHECK(strcmp(b->name, "sheet") == 0);
  CHECK_INT(b->mesh.kind, SIM_SRC_CLOTH);
  CHECK_NEAR(b->mesh.size[0], 2, 0);
  CHECK_NEAR(b->mesh.size[1], 1.5, 0);
  CHECK_INT(b->mesh.vertices[0], 41);
  CHECK_INT(b->mesh.vertices[1], 31);
  CHECK_INT(b->mesh.cloth_cross, 1);
  CHECK_INT(s->bodies[1].mesh.cloth_cross, 0);
  CHECK_NEAR(b->transform.rotate_deg[0], 90, 0);
  CHECK_INT(b->material.model, SIM_MAT_NEOHOOKEAN);
  CHECK_NEAR(b->material.density, 200, 0);
  CHECK_INT(b->material.lumping, SIM_LUMP_VOLUME);
  CHECK_NEAR(b->material.thickness, 0.0005, 0);
  CHECK_NEAR(b->material.youngs_modulus, 5e5, 0);
  CHECK_NEAR(b->material.poisson_ratio, 0.3, 0);
  CHECK_INT(b->bending.type, SIM_BEND_LAPLACE_BELTRAMI);
  CHECK_NEAR(b->bending.stiffness, 0.02, 0);

  b = &s->bodies[1]; /* cloth defaults */
  CHECK_INT(b->mesh.kind, SIM_SRC_CLOTH);
  CHECK_NEAR(b->mesh.size[0], 1, 0);
  CHECK_NEAR(b->mesh.size[1], 1, 0);
  CHECK_INT(b->mesh.vertices[0], 2);
  CHECK_INT(b->mesh.vertices[1], 2);
  CHECK_INT(b->material.model, SIM_MAT_COROTATIONAL);
  CHECK_NEAR(b->material.mass, 0.1, 0);
  CHECK_INT(b->material.lumping, SIM_LUMP_UNIFORM);
  CHECK_NEAR(b->material.thickness, 0.001, 0);
  CHECK_INT(b->bending.type, SIM_BEND_ISOMETRIC);
  CHECK_NEAR(b->bending.stiffness, 1e-3, 0);

  b = &s->bodies[2]; /* thickness on a tet body: allowed, ignored */
  CHECK_INT(b->mesh.kind, SIM_SRC_BAR);
  CHECK_INT(b->material.model, SIM_MAT_COROTATIONAL);
  CHECK_NEAR(b->material.thickness, 0.01, 0);
  CHECK_INT(b->bending.type, SIM_BEND_NONE);
  CHECK_NEAR(b->bending.stiffness, 1e-3, 0);

  /* chebyshev_rho is valid with every global solver */
  for (int g = 0; g < SIM_GLOBAL_COUNT; g++) {
    static const char *const names[SIM_GLOBAL_COUNT] = {
        "solver.global=auto", "solver.global=sparse_inverse", "solver.global=cholesky",
        "solver.global=jacobi", "solver.global=dense_inverse"};
    const char *ovr[2] = {names[g], "solver.chebyshev_rho=0.99"};
    rc = sim_scene_load("data/scenes/loader_cloth.json", ovr, 2, s, &st);
    CHECK_INT(rc, SIM_OK);
    CHECK_INT(s->solver.global, g);
    CHECK_NEAR(s->solver.chebyshev_rho, 0.99, 0);
  }
}

#define B "{'mesh': {'type': 'icosphere'}}"
#define BOX "'box': [0, 0, 0, 1, 1, 1]"

static void test_defaults(void) {
  sim_scene *s = &g_scene;
  sim_default_scene(s);
  CHECK(strcmp(s->name, "scene") == 0);
  CHECK_NEAR(s->solver.dt, 0.01, 0);
  CHECK_INT(s->solver.frames, 100);
  CHECK_INT(s->solver.lg_iterations, 5);
  CHECK_INT(s->solver.global, SIM_GLOBAL_AUTO);
  CHECK_INT(s->solver.device, SIM_DEVICE_AUTO);
  CHECK_INT(s->solver.precision, SIM_PREC_DOUBLE);
  CHECK_INT(s->solver.ordering, SIM_ORDER_METIS);
  CHECK_INT(s->solver.threads, 0);
  CHECK_INT(s->nbodies, 0);
  CHECK_INT(s->npins, 0);
  CHECK_INT(s->output.every, 1);
  CHECK_INT(s->output.formats, SIM_OUT_VTK | SIM_OUT_OBJ | SIM_OUT_CSV);

  sim_body_def b;
  sim_default_body(&b);
  CHECK_INT(b.mesh.kind, SIM_SRC_ICOSPHERE);
  CHECK_NEAR(b.mesh.radius, 1, 0);
  CHECK_INT(b.mesh.subdivisions, 3);
  CHECK_NEAR(b.mesh.tet_quality, 1.414, 0);
  CHECK_NEAR(b.mesh.tet_max_volume, 0, 0);
  for (int k = 0; k < 3; k++) {
    CHECK_NEAR(b.transform.scale[k], 1, 0);
    CHECK_NEAR(b.transform.translate[k], 0, 0);
    CHECK_NEAR(b.velocity[k], 0, 0);
  }
  CHECK_NEAR(b.material.youngs_modulus, 1e6, 0);
  CHECK_NEAR(b.material.poisson_ratio, 0.45, 0);
  CHECK_NEAR(b.material.density, 1000, 0);
  CHECK_NEAR(b.material.mass, 0, 0);
  CHECK_INT(b.material.lumping, SIM_LUMP_VOLUME);
  CHECK_INT(b.material.model, SIM_MAT_ARAP);
  CHECK_NEAR(b.material.thickness, 0.001, 0);
  CHECK_INT(b.bending.type, SIM_BEND_NONE);
  CHECK_NEAR(b.bending.stiffness, 1e-3, 0);
  sim_mesh_def m;
  sim_default_mesh(&m, SIM_SRC_CLOTH);
  CHECK_NEAR(m.size[0], 1, 0);
  CHECK_NEAR(m.size[1], 1, 0);
  CHECK_INT(m.vertices[0], 2);
  CHECK_INT(m.vertices[1], 2);
  CHECK_INT(m.vertices[2], 1); /* unused: the product is the vertex count */

  /* a built-in scene with one default body validates */
  sim_status st;
  s->nbodies = 1;
  CHECK_INT(sim_scene_validate(s, &st), SIM_OK);
  s->bodies[0].material.youngs_modulus = -1;
  CHECK_INT(sim_scene_validate(s, &st), SIM_ERR_SCENE);
  CHECK_MSG(st, "scene: bodies.0.material.youngs_modulus: expected a number > 0, got -1");

  /* the smallest scene: everything else from the defaults */
  int rc = sim_scene_load_string(q("{'bodies': [{'mesh': {'type': 'icosphere'}}]}"),
                                 "some/dir/minimal.json", NULL, 0, s, &st);
  CHECK_INT(rc, SIM_OK);
  CHECK(strcmp(s->name, "minimal") == 0);
  CHECK(strcmp(s->output.dir, "out/minimal") == 0);
  CHECK(strcmp(s->bodies[0].name, "body0") == 0);
  CHECK_NEAR(s->bodies[0].mesh.radius, 1, 0);
  CHECK_INT(s->bodies[0].mesh.subdivisions, 3);
  CHECK_NEAR(s->gravity[1], 0, 0);
  CHECK_NEAR(s->solver.dt, 0.01, 0);
  CHECK_INT(s->output.png_width, 640);
  CHECK_INT(s->output.png_height, 480);

  /* per-type mesh defaults; bodies named "body<i>" */
  rc = sim_scene_load_string(
      q("{'bodies': [{'mesh': {'type': 'cylinder', 'radius': 1, 'height': 2}},"
        " {'mesh': {'type': 'capsule', 'radius': 1, 'height': 1}},"
        " {'mesh': {'type': 'box', 'lo': [0, 0, 0], 'hi': [1, 1, 1]}}],"
        " 'pins': [{'box': [0, 0, 0, 1, 1, 1]}]}"),
      "x.json", NULL, 0, s, &st);
  CHECK_INT(rc, SIM_OK);
  CHECK_INT(s->bodies[0].mesh.segments, 24);
  CHECK_INT(s->bodies[0].mesh.rings, 8);
  CHECK_INT(s->bodies[1].mesh.segments, 24);
  CHECK_INT(s->bodies[1].mesh.rings, 8);
  CHECK_INT(s->bodies[2].mesh.segments, 4);
  CHECK(strcmp(s->bodies[2].name, "body2") == 0);
  CHECK_INT(s->pins[0].body, 0);
  CHECK_INT(s->pins[0].nsteps, 0);

  /* vectors whose squares under- or overflow are normalised all the same (not left tiny,
     which a pin script or a plane would take as no direction) */
  rc = sim_scene_load_string(
      q("{'bodies': [" B "], 'pins': [{" BOX ", 'script': [{'type': 'pulling', 'direction': "
        "[3e-200, 0, -4e-200], 'speed': 1, 'length': 1}, {'type': 'rolling', 'axis': [0, 1e300, "
        "0], 'speed': 1, 'angle': 1}]}], 'obstacles': [{'type': 'plane', 'normal': [0, 5e-324, "
        "0]}]}"),
      "x.json", NULL, 0, s, &st);
  CHECK_INT(rc, SIM_OK);
  CHECK_NEAR(s->pins[0].steps[0].direction[0], 0.6, 1e-15);
  CHECK_NEAR(s->pins[0].steps[0].direction[2], -0.8, 1e-15);
  CHECK_NEAR(s->pins[0].steps[1].axis[1], 1, 0);
  CHECK_NEAR(s->obstacles[0].normal[1], 1, 0);
}

static const bad_case bad_cases[] = {
    /* malformed JSON */
    {"{'solver': {'dt': 0.01,}}",
     "bad.json:1:24: invalid JSON: expected a string key, got '}' (no comma after the last "
     "member)"},
    {"{\n  'name': 'a'\n  'bodies': []\n}",
     "bad.json:3:3: invalid JSON: expected ',' or '}', got '\"'"},
    {"{'bodies': [{'mesh': {'type': 'icosphere'}}]} extra",
     "bad.json:1:47: invalid JSON: expected the end of the file after the top-level value, got "
     "'extra'"},
    {"", "bad.json:1:1: invalid JSON: the file is empty (expected an object)"},
    {"{\n  // a comment\n  'bodies': []\n}",
     "bad.json:2:3: invalid JSON: expected a string key or '}', got a comment (JSON has no "
     "comments)"},
    {"{`name`: 1}",
     "bad.json:1:2: invalid JSON: expected a string key or '}', got ' (JSON strings use double "
     "quotes)"},
    {"{'name': 'abc}",
     "bad.json:1:10: invalid JSON: unterminated string (a string must end with '\"' on its line)"},
    {"{'solver': {'frames': 010}}",
     "bad.json:1:23: invalid JSON: invalid number: leading zeros are not allowed"},
    {"{'gravity': [0, NaN, 0]}", "bad.json:1:17: invalid JSON: expected a value, got 'NaN'"},
    {"[1, 2]", "bad.json:1:1: expected an object at the top level, got an array"},
    /* strings are UTF-8 (RFC 8259): a stray byte, an overlong form, a surrogate */
    {"{'name': 'a\xFFz'}", "bad.json:1:12: invalid JSON: invalid UTF-8 byte 0xff in a string"},
    {"{'name': 'a\xC0\xAFz'}", "bad.json:1:12: invalid JSON: invalid UTF-8 byte 0xc0 in a string"},
    {"{'name': 'a\xED\xA0\x80'}",
     "bad.json:1:12: invalid JSON: invalid UTF-8 byte 0xed in a string"},
    {"{'pins': []}", "bad.json:1:1: missing required key \"bodies\" (an array of 1..16 bodies)"},
    /* columns count characters, not bytes; escaped keys are found too */
    {"{'name': 'h\xC3\xA9llo', 'zz': 1}",
     "bad.json:1:19: zz: unknown key \"zz\" (allowed: \"name\", \"solver\", \"gravity\", "
     "\"bodies\", \"pins\", \"cables\", \"contact\", \"obstacles\", \"output\")"},
    {"{'solver': {'d\\u0074t': 1}}",
     "bad.json:1:13: solver.dtt: unknown key \"dtt\" (did you mean \"dt\"?)"},
    /* unknown and duplicate keys */
    {"{\n  'solver': {'dtt': 0.01},\n  'bodies': [" B "]\n}",
     "bad.json:2:14: solver.dtt: unknown key \"dtt\" (did you mean \"dt\"?)"},
    {"{'bodys': []}", "bad.json:1:2: bodys: unknown key \"bodys\" (did you mean \"bodies\"?)"},
    {"{'solver': {'zzz': 1}}",
     "bad.json:1:13: solver.zzz: unknown key \"zzz\" (allowed: \"dt\", \"frames\", "
     "\"lg_iterations\", \"global\", \"device\", \"precision\", \"ordering\", \"threads\", "
     "\"chebyshev_rho\", \"dense_max_mib\", \"gpu\")"},
    {"{'bodies': [{'mesh': {'type': 'bar', 'radius': 1}}]}",
     "bad.json:1:38: bodies.0.mesh.radius: unknown key \"radius\" for mesh type \"bar\" (allowed: "
     "\"type\", \"lo\", \"hi\", \"vertices\")"},
    {"{'solver': {'dt': 0.01, 'dt': 0.02}}",
     "bad.json:1:25: solver.dt: duplicate key \"dt\" (each key may appear once)"},
    {"{'bodies': [" B "], 'pins': [{" BOX
     ", 'script': [{'type': 'rolling', 'axis': [0, 1, 0], 'speed': 5, 'angle': 9, 'length': 1}]}]}",
     "bad.json:1:158: pins.0.script.0.length: unknown key \"length\" for a \"rolling\" step "
     "(allowed: \"type\", \"axis\", \"center\", \"speed\", \"angle\", \"ramp\")"},
    /* types and shapes */
    {"{\n  'solver': {\n    'dt': '0.01'\n  }\n}",
     "bad.json:3:11: solver.dt: expected a number, got a string"},
    {"{'gravity': [0, -9.81], 'bodies': [" B "]}",
     "bad.json:1:13: gravity: expected an array of 3 numbers, got an array of 2"},
    {"{'solver': {'frames': 2.5}, 'bodies': [" B "]}",
     "bad.json:1:23: solver.frames: expected an integer, got 2.5"},
    {"{'gravity': [0, 'down', 0], 'bodies': [" B "]}",
     "bad.json:1:17: gravity.1: expected a number, got a string"},
    {"{'solver': {'dt': 1e999}, 'bodies': [" B "]}",
     "bad.json:1:19: solver.dt: expected a finite number, got one too large for a double"},
    {"{'bodies': {}}", "bad.json:1:12: bodies: expected an array, got an object"},
    {"{'solver': {'global': 'chol'}, 'bodies': [" B "]}",
     "bad.json:1:23: solver.global: expected one of \"auto\", \"sparse_inverse\", \"cholesky\", "
     "\"jacobi\", \"dense_inverse\", got "
     "\"chol\" (did you mean \"cholesky\"?)"},
    {"{'solver': {'global': 'foo'}, 'bodies': [" B "]}",
     "bad.json:1:23: solver.global: expected one of \"auto\", \"sparse_inverse\", \"cholesky\", "
     "\"jacobi\", \"dense_inverse\", got \"foo\""},
    {"{'bodies': [" B "], 'output': {'formats': ['vtx']}}",
     "bad.json:1:70: output.formats.0: expected one of \"vtk\", \"obj\", \"png\", \"csv\", got "
     "\"vtx\" (did you mean \"vtk\"?)"},
    /* required keys */
    {"{}", "bad.json:1:1: missing required key \"bodies\" (an array of 1..16 bodies)"},
    {"{'bodies': []}", "bad.json:1:12: bodies: expected 1..16 bodies, got 0"},
    {"{'bodies': [{}]}",
     "bad.json:1:13: bodies.0: missing required key \"mesh\" (where the body comes from)"},
    {"{'bodies': [{'mesh': {}}]}",
     "bad.json:1:22: bodies.0.mesh: missing required key \"type\" (one of \"bar\", \"icosphere\", "
     "\"box\", \"cylinder\", \"capsule\", \"file\", \"cloth\")"},
    {"{'bodies': [{'mesh': {'type': 'bar', 'hi': [1, 1, 1], 'vertices': [2, 2, 2]}}]}",
     "bad.json:1:22: bodies.0.mesh: missing required key \"lo\" (required for mesh type \"bar\")"},
    {"{'bodies': [{'mesh': {'type': 'cylinder', 'radius': 1}}]}",
     "bad.json:1:22: bodies.0.mesh: missing required key \"height\" (required for mesh type "
     "\"cylinder\")"},
    {"{'bodies': [" B "], 'pins': [{" BOX ", 'script': [{'speed': 1}]}]}",
     "bad.json:1:95: pins.0.script.0: missing required key \"type\" (\"pulling\", \"rolling\" or "
     "\"wait\")"},
    /* ranges */
    {"{\n  'bodies': [\n    {\n      'mesh': {'type': 'icosphere'},\n"
     "      'material': {'youngs_modulus': -5}\n    }\n  ]\n}",
     "bad.json:5:38: bodies.0.material.youngs_modulus: expected a number > 0, got -5"},
    {"{'bodies': [{'mesh': {'type': 'icosphere'}, 'material': {'poisson_ratio': 0.5}}]}",
     "bad.json:1:75: bodies.0.material.poisson_ratio: expected a number < 0.5, got 0.5"},
    {"{'solver': {'dt': 2}, 'bodies': [" B "]}",
     "bad.json:1:19: solver.dt: expected a number <= 1, got 2"},
    {"{'solver': {'frames': 0}, 'bodies': [" B "]}",
     "bad.json:1:23: solver.frames: expected an integer >= 1, got 0"},
    {"{'solver': {'dt': 1e-12}, 'bodies': [" B "]}",
     "bad.json:1:19: solver.dt: expected a number >= 1e-09, got 1e-12"},
    {"{'solver': {'frames': 3000000000}, 'bodies': [" B "]}",
     "bad.json:1:23: solver.frames: expected an integer <= 2147483647, got 3000000000"},
    {"{'solver': {'threads': -1}, 'bodies': [" B "]}",
     "bad.json:1:24: solver.threads: expected an integer >= 0, got -1"},
    {"{'bodies': [{'mesh': {'type': 'icosphere'}, 'material': {'mass': 0}}]}",
     "bad.json:1:66: bodies.0.material.mass: expected a number > 0, got 0"},
    {"{'bodies': [{'mesh': {'type': 'icosphere'}, 'material': {'density': 500, 'mass': 10}}]}",
     "bad.json:1:82: bodies.0.material.mass: give either \"density\" or \"mass\", not both"},
    {"{'bodies': [{'mesh': {'type': 'bar', 'lo': [0, 0, 0], 'hi': [1, 1, 1], 'vertices': [14, 1, "
     "14]}}]}",
     "bad.json:1:89: bodies.0.mesh.vertices.1: expected an integer >= 2, got 1"},
    {"{'bodies': [{'mesh': {'type': 'bar', 'lo': [0, 2, 0], 'hi': [1, -2, 1], 'vertices': [2, 2, "
     "2]}}]}",
     "bad.json:1:65: bodies.0.mesh.hi.1: expected a number > 2 (lo.1), got -2"},
    {"{'bodies': [{'mesh': {'type': 'icosphere', 'subdivisions': 8}}]}",
     "bad.json:1:60: bodies.0.mesh.subdivisions: expected an integer <= 7, got 8"},
    {"{'bodies': [{'mesh': {'type': 'icosphere', 'tetgen': {'quality': 0.5}}}]}",
     "bad.json:1:66: bodies.0.mesh.tetgen.quality: expected 0 (off) or a number >= 1, got 0.5"},
    {"{'bodies': [{'mesh': {'type': 'icosphere'}, 'transform': {'scale': -1}}]}",
     "bad.json:1:68: bodies.0.transform.scale: expected a number > 0, got -1"},
    {"{'bodies': [" B "], 'pins': [{'body': 3, " BOX "}]}",
     "bad.json:1:65: pins.0.body: expected a body index 0..0, got 3"},
    {"{'bodies': [" B "], 'pins': [{'box': [0, 2, 0, 1, 1, 1]}]}",
     "bad.json:1:77: pins.0.box.4: expected a number >= 2 (box.1, the y minimum), got 1"},
    {"{'bodies': [" B "], 'pins': [{" BOX
     ", 'script': [{'type': 'rolling', 'axis': [0, 1, 0], 'speed': 0, 'angle': 90}]}]}",
     "bad.json:1:143: pins.0.script.0.speed: expected a nonzero number (deg/s; the sign sets the "
     "sense), got 0"},
    {"{'bodies': [" B "], 'pins': [{" BOX
     ", 'script': [{'type': 'pulling', 'direction': [0, 0, 0], 'speed': 1, 'length': 1}]}]}",
     "bad.json:1:128: pins.0.script.0.direction: expected a nonzero vector, got [0, 0, 0]"},
    {"{'bodies': [" B "], 'pins': [{" BOX
     ", 'script': [{'type': 'pulling', 'direction': [0, 1, 0], 'speed': 2, 'length': 1, "
     "'ramp': -0.1}]}]}",
     "bad.json:1:172: pins.0.script.0.ramp: expected a number >= 0, got -0.1"},
    {"{'bodies': [" B "], 'pins': [{" BOX
     ", 'script': [{'type': 'pulling', 'direction': [0, 1, 0], 'speed': 2, 'length': 1, "
     "'ramp': 0.6}]}]}",
     "bad.json:1:172: pins.0.script.0.ramp: expected a number <= 0.5 (length / speed: the ramps "
     "at both ends must fit in the step), got 0.6"},
    {"{'bodies': [" B "], 'obstacles': [{'type': 'sphere', 'center': [0, 0, 0], 'radius': 1, "
     "'script': [{'type': 'rolling', 'axis': [0, 1, 0], 'speed': -45, 'angle': 90, "
     "'ramp': 3}]}]}",
     "bad.json:1:199: obstacles.0.script.0.ramp: expected a number <= 2 (angle / |speed|: the "
     "ramps at both ends must fit in the step), got 3"},
    {"{'bodies': [" B "], 'pins': [{" BOX ", 'mode': 'constrain'}]}",
     "bad.json:1:92: pins.0.mode: expected one of \"eliminate\", \"constraint\", got "
     "\"constrain\" (did you mean \"constraint\"?)"},
    {"{'bodies': [" B "], 'pins': [{" BOX ", 'mode': 'constraint', 'compliance': -1e-3}]}",
     "bad.json:1:120: pins.0.compliance: expected a number >= 0, got -0.001"},
    {"{'bodies': [" B "], 'pins': [{" BOX ", 'compliance': 0.01}]}",
     "bad.json:1:98: pins.0.compliance: expected 0 for an \"eliminate\" pin (set \"mode\": "
     "\"constraint\"), got 0.01"},
    {"{'bodies': [" B "], 'pins': [{" BOX ", 'mode': 'constraint', 'compliance': 'soft'}]}",
     "bad.json:1:120: pins.0.compliance: expected a number, got a string"},
    {"{'bodies': [" B "], 'pins': [{" BOX ", 'stiffness': 1}]}",
     "bad.json:1:84: pins.0.stiffness: unknown key \"stiffness\" (allowed: \"body\", \"box\", "
     "\"script\", \"mode\", \"compliance\")"},
    {"{'bodies': [" B "], 'output': {'formats': ['vtk', 'vtk']}}",
     "bad.json:1:77: output.formats.1: duplicate format \"vtk\""},
    {"{'bodies': [" B "], 'output': {'png_size': [8, 480]}}",
     "bad.json:1:71: output.png_size.0: expected an integer >= 16, got 8"},
    {"{'bodies': [" B "], 'output': {'every': 0}}",
     "bad.json:1:67: output.every: expected an integer >= 1, got 0"},
    {"{'bodies': [{'mesh': {'type': 'file', 'path': 'meshes/nope.obj'}}]}",
     "bad.json:1:47: bodies.0.mesh.path: file not found: meshes/nope.obj"},
    /* material models, thickness, cloth meshes, bending */
    {"{'bodies': [{'mesh': {'type': 'icosphere'}, 'material': {'model': 'neohookean'}}]}",
     "bad.json:1:67: bodies.0.material.model: expected one of \"arap\", \"corotational\", "
     "\"neo_hookean\", got \"neohookean\" (did you mean \"neo_hookean\"?)"},
    {"{'bodies': [{'mesh': {'type': 'icosphere'}, 'material': {'model': 'linear'}}]}",
     "bad.json:1:67: bodies.0.material.model: expected one of \"arap\", \"corotational\", "
     "\"neo_hookean\", got \"linear\""},
    {"{'bodies': [{'mesh': {'type': 'cloth'}, 'material': {'thickness': 0}}]}",
     "bad.json:1:67: bodies.0.material.thickness: expected a number > 0, got 0"},
    {"{'bodies': [{'mesh': {'type': 'icosphere'}, 'material': {'thickness': -0.001}}]}",
     "bad.json:1:71: bodies.0.material.thickness: expected a number > 0, got -0.001"},
    {"{'bodies': [{'mesh': {'type': 'clth'}}]}",
     "bad.json:1:31: bodies.0.mesh.type: expected one of \"bar\", \"icosphere\", \"box\", "
     "\"cylinder\", \"capsule\", \"file\", \"cloth\", got \"clth\" (did you mean \"cloth\"?)"},
    {"{'bodies': [{'mesh': {'type': 'cloth', 'pattern': 'crosss'}}]}",
     "bad.json:1:51: bodies.0.mesh.pattern: expected one of \"diagonal\", \"cross\", got "
     "\"crosss\" (did you mean \"cross\"?)"},
    {"{'bodies': [{'mesh': {'type': 'cloth', 'size': [1, 0]}}]}",
     "bad.json:1:52: bodies.0.mesh.size.1: expected a number > 0, got 0"},
    {"{'bodies': [{'mesh': {'type': 'cloth', 'size': [-2, 1]}}]}",
     "bad.json:1:49: bodies.0.mesh.size.0: expected a number > 0, got -2"},
    {"{'bodies': [{'mesh': {'type': 'cloth', 'size': [1, 1, 1]}}]}",
     "bad.json:1:48: bodies.0.mesh.size: expected an array of 2 numbers, got an array of 3"},
    {"{'bodies': [{'mesh': {'type': 'cloth', 'vertices': [10, 10, 10]}}]}",
     "bad.json:1:52: bodies.0.mesh.vertices: expected an array of 2 integers [nx, nz] for mesh "
     "type \"cloth\", got an array of 3"},
    {"{'bodies': [{'mesh': {'type': 'cloth', 'vertices': 10}}]}",
     "bad.json:1:52: bodies.0.mesh.vertices: expected an array of 2 integers [nx, nz] for mesh "
     "type \"cloth\", got a number"},
    {"{'bodies': [{'mesh': {'type': 'bar', 'lo': [0, 0, 0], 'hi': [1, 1, 1], 'vertices': [2, "
     "2]}}]}",
     "bad.json:1:84: bodies.0.mesh.vertices: expected an array of 3 integers [nx, ny, nz] for mesh "
     "type \"bar\", got an array of 2"},
    {"{'bodies': [{'mesh': {'type': 'cloth', 'vertices': [10, 1]}}]}",
     "bad.json:1:57: bodies.0.mesh.vertices.1: expected an integer >= 2, got 1"},
    {"{'bodies': [{'mesh': {'type': 'cloth', 'vertices': [0, 10]}}]}",
     "bad.json:1:53: bodies.0.mesh.vertices.0: expected an integer >= 2, got 0"},
    {"{'bodies': [{'mesh': {'type': 'cloth', 'vertices': [5001, 5000]}}]}",
     "bad.json:1:52: bodies.0.mesh.vertices: expected at most 25000000 vertices in all, got "
     "25005000"},
    {"{'bodies': [{'mesh': {'type': 'cloth', 'lo': [0, 0, 0]}}]}",
     "bad.json:1:40: bodies.0.mesh.lo: unknown key \"lo\" for mesh type \"cloth\" (allowed: "
     "\"type\", \"size\", \"vertices\", \"pattern\")"},
    {"{'bodies': [{'mesh': {'type': 'cloth', 'tetgen': {'quality': 2}}}]}",
     "bad.json:1:40: bodies.0.mesh.tetgen: unknown key \"tetgen\" for mesh type \"cloth\" "
     "(allowed: \"type\", \"size\", \"vertices\", \"pattern\")"},
    {"{'bodies': [{'mesh': {'type': 'icosphere', 'size': [1, 1]}}]}",
     "bad.json:1:44: bodies.0.mesh.size: unknown key \"size\" for mesh type \"icosphere\" "
     "(allowed: \"type\", \"radius\", \"subdivisions\", \"tetgen\")"},
    {"{'bodies': [{'mesh': {'type': 'cloth'}, 'bending': {'type': 'isometrc'}}]}",
     "bad.json:1:61: bodies.0.bending.type: expected one of \"none\", \"isometric\", "
     "\"laplace_beltrami\", got \"isometrc\" (did you mean \"isometric\"?)"},
    {"{'bodies': [{'mesh': {'type': 'cloth'}, 'bending': {'type': 'dihedral'}}]}",
     "bad.json:1:61: bodies.0.bending.type: expected one of \"none\", \"isometric\", "
     "\"laplace_beltrami\", got \"dihedral\""},
    {"{'bodies': [{'mesh': {'type': 'cloth'}, 'bending': {'type': 'isometric', 'stiffness': -1}}]}",
     "bad.json:1:87: bodies.0.bending.stiffness: expected a number >= 0, got -1"},
    {"{'bodies': [{'mesh': {'type': 'cloth'}, 'bending': {'stifness': 1}}]}",
     "bad.json:1:53: bodies.0.bending.stifness: unknown key \"stifness\" (did you mean "
     "\"stiffness\"?)"},
    {"{'bodies': [{'mesh': {'type': 'cloth'}, 'bending': 'isometric'}]}",
     "bad.json:1:52: bodies.0.bending: expected an object, got a string"},
    {"{'bodies': [{'mesh': {'type': 'icosphere'}, 'bending': {'type': 'isometric'}}]}",
     "bad.json:1:65: bodies.0.bending.type: expected \"none\" (bending needs a cloth mesh; this "
     "body's mesh is \"icosphere\"), got \"isometric\""},
    {"{'bodies': [{'mesh': {'type': 'icosphere'}, 'bending': {'stiffness': -1}}]}",
     "bad.json:1:70: bodies.0.bending.stiffness: expected a number >= 0, got -1"},
    {"{'solver': {'global': 'cholesky', 'chebyshev_rho': 1}, 'bodies': [" B "]}",
     "bad.json:1:52: solver.chebyshev_rho: expected a number < 1, got 1"},
    {"{'name': 'my scene', 'bodies': [" B "]}",
     "bad.json:1:10: name: expected a name of letters, digits, '_', '-' and '.', got \"my scene\""},
    {"{'bodies': [" B ", {'name': 'body0', 'mesh': {'type': 'icosphere'}}]}",
     "bad.json:1:55: bodies.1.name: duplicate body name \"body0\" (also bodies.0)"},
    /* a scene's name is its output folder's: ".." would write into the folder above */
    {"{'name': '..', 'bodies': [" B "]}",
     "bad.json:1:10: name: expected a name other than \".\" and \"..\", got \"..\""},
    {"{'bodies': [{'name': '.', 'mesh': {'type': 'icosphere'}}]}",
     "bad.json:1:22: bodies.0.name: expected a name other than \".\" and \"..\", got \".\""},
    /* cJSON's strings end at a NUL, which would cut "arap\u0000x" to "arap" unseen */
    {"{'bodies': [{'mesh': {'type': 'icosphere'}, 'material': {'model': 'arap\\u0000x'}}]}",
     "bad.json:1:72: invalid JSON: invalid \\u escape: \\u0000 (NUL) is not allowed in a string"},
};

static void test_bad_scenes(void) {
  const int n = (int)(sizeof bad_cases / sizeof bad_cases[0]);
  CHECK(n >= 25);
  check_bad_cases(bad_cases, n);

  /* a file mesh of an unknown kind; a file that is missing altogether */
  sim_status st;
  CHECK_INT(load("{'bodies': [{'mesh': {'type': 'file', 'path': 'm.ply'}}]}", NULL, 0, &st),
            SIM_ERR_SCENE);
  CHECK_STR_CONTAINS(st.msg, "bad.json:1:47: bodies.0.mesh.path: expected a file ending in .obj");
  CHECK_INT(sim_scene_load("data/scenes/no_such_scene.json", NULL, 0, &g_scene, &st),
            SIM_ERR_SCENE);
  CHECK_MSG(st, "data/scenes/no_such_scene.json: cannot open: No such file or directory");
}

#define BASE                                     \
  "{\n  'solver': {'dt': 0.01, 'frames': 10},\n" \
  "  'bodies': [{'mesh': {'type': 'icosphere'}, 'material': {'density': 900}}]\n}"

static void test_overrides(void) {
  sim_status st;
  sim_scene *s = &g_scene;
  const char *good[] = {"solver.dt=0.005",        "bodies.0.material.youngs_modulus=2e7",
                        "solver.global=cholesky", "name=\"renamed\"",
                        "gravity=[0, -1, 0]",     "gravity.1=-2",
                        "solver.threads=4"};
  int rc = load(BASE, good, 7, &st);
  CHECK_INT(rc, SIM_OK);
  if (rc) fprintf(stderr, "  %s\n", st.msg);
  CHECK_NEAR(s->solver.dt, 0.005, 0);
  CHECK_INT(s->solver.frames, 10);
  CHECK_NEAR(s->bodies[0].material.youngs_modulus, 2e7, 0);
  CHECK_INT(s->solver.global, SIM_GLOBAL_CHOLESKY);
  CHECK(strcmp(s->name, "renamed") == 0);
  CHECK(strcmp(s->output.dir, "out/renamed") == 0);
  CHECK_NEAR(s->gravity[1], -2, 0);
  CHECK_INT(s->solver.threads, 4);

  /* missing keys are created, arrays grow by one, null removes a key */
  const char *grow[] = {"pins.0.box=[0,0,0,1,1,1]",
                        "bodies.1={\"mesh\": {\"type\": \"icosphere\", \"radius\": 2}}",
                        "bodies.0.material.density=null",
                        "bodies.0.material.mass=5",
                        "output.every=2",
                        "pins.0.mode=constraint",
                        "pins.0.compliance=1e-4"};
  rc = load(BASE, grow, 7, &st);
  CHECK_INT(rc, SIM_OK);
  if (rc) fprintf(stderr, "  %s\n", st.msg);
  CHECK_INT(s->npins, 1);
  CHECK_NEAR(s->pins[0].box[3], 1, 0);
  CHECK_INT(s->pins[0].mode, SIM_PIN_CONSTRAINT);
  CHECK_NEAR(s->pins[0].compliance, 1e-4, 0);
  CHECK_INT(s->nbodies, 2);
  CHECK_NEAR(s->bodies[1].mesh.radius, 2, 0);
  CHECK_NEAR(s->bodies[0].material.mass, 5, 0);
  CHECK_INT(s->bodies[0].material.lumping, SIM_LUMP_UNIFORM);
  CHECK_INT(s->output.every, 2);

  /* the new fields: material model and thickness, a cloth mesh, bending */
  const char *cloth[] = {"bodies.0.mesh.type=cloth",          "bodies.0.mesh.vertices=[101,100]",
                         "bodies.0.mesh.size=[2, 0.5]",       "bodies.0.material.model=neo_hookean",
                         "bodies.0.material.thickness=0.002", "bodies.0.bending.type=isometric",
                         "bodies.0.bending.stiffness=0.25",   "solver.global=sparse_inverse",
                         "solver.chebyshev_rho=0.9"};
  rc = load(BASE, cloth, 9, &st);
  CHECK_INT(rc, SIM_OK);
  if (rc) fprintf(stderr, "  %s\n", st.msg);
  CHECK_INT(s->bodies[0].mesh.kind, SIM_SRC_CLOTH);
  CHECK_INT(s->bodies[0].mesh.vertices[0], 101);
  CHECK_INT(s->bodies[0].mesh.vertices[1], 100);
  CHECK_NEAR(s->bodies[0].mesh.size[0], 2, 0);
  CHECK_NEAR(s->bodies[0].mesh.size[1], 0.5, 0);
  CHECK_INT(s->bodies[0].material.model, SIM_MAT_NEOHOOKEAN);
  CHECK_NEAR(s->bodies[0].material.thickness, 0.002, 0);
  CHECK_NEAR(s->bodies[0].material.density, 900, 0);
  CHECK_INT(s->bodies[0].bending.type, SIM_BEND_ISOMETRIC);
  CHECK_NEAR(s->bodies[0].bending.stiffness, 0.25, 0);
  CHECK_INT(s->solver.global, SIM_GLOBAL_SPARSE_INVERSE);
  CHECK_NEAR(s->solver.chebyshev_rho, 0.9, 0);
  const char *whole[] = {"bodies.0.mesh={\"type\": \"cloth\", \"size\": [3, 3]}",
                         "bodies.0.bending={\"type\": \"laplace_beltrami\"}",
                         "bodies.0.material.model=corotational"};
  rc = load(BASE, whole, 3, &st);
  CHECK_INT(rc, SIM_OK);
  if (rc) fprintf(stderr, "  %s\n", st.msg);
  CHECK_INT(s->bodies[0].mesh.vertices[0], 2);
  CHECK_NEAR(s->bodies[0].mesh.size[1], 3, 0);
  CHECK_INT(s->bodies[0].bending.type, SIM_BEND_LAPLACE_BELTRAMI);
  CHECK_NEAR(s->bodies[0].bending.stiffness, 1e-3, 0);
  CHECK_INT(s->bodies[0].material.model, SIM_MAT_COROTATIONAL);

  /* bad overrides, and bad values set by overrides */
  static const bad_override bad[] = {
      {"solver.dt", "--set solver.dt: expected PATH=VALUE (e.g. solver.dt=0.005)"},
      {"=3", "--set =3: expected a path before '=' (e.g. solver.dt=0.005)"},
      {"solver..dt=1", "--set solver..dt=1: expected a key between dots in the path"},
      {"bodies.5.name=x",
       "--set bodies.5.name=x: bodies has 1 element: expected an index 0..1 (1 appends), got 5"},
      {"bodies.x.name=a",
       "--set bodies.x.name=a: bodies is an array: expected an index 0..1, got "
       "\"x\""},
      {"solver.dt.x=1",
       "--set solver.dt.x=1: expected solver.dt to be an object or array, but it is a number"},
      {"bodies[0].material[1]=2",
       "--set bodies[0].material[1]=2: expected a dot before an array index, as in "
       "bodies.0.material.1"},
      {"pins.0.script.0.type=wait",
       "--set pins.0.script.0.type=wait: pins.0: missing required key \"box\" ([xmin, ymin, "
       "zmin, xmax, ymax, zmax])"},
      {"bodies.0=null", "--set bodies.0=null: null removes object keys only, not array elements"},
      {"solver.dt=-1", "--set solver.dt=-1: solver.dt: expected a number >= 1e-09, got -1"},
      {"solver.dtt=1",
       "--set solver.dtt=1: solver.dtt: unknown key \"dtt\" (did you mean \"dt\"?)"},
      {"solver.frames=ten",
       "--set solver.frames=ten: solver.frames: expected an integer, got a "
       "string"},
      {"solver.global=chol",
       "--set solver.global=chol: solver.global: expected one of \"auto\", "
       "\"sparse_inverse\", \"cholesky\", \"jacobi\", \"dense_inverse\", got \"chol\" (did you "
       "mean \"cholesky\"?)"},
      {"solver={\"dt\": 0.5, \"frames\": 0}",
       "--set solver={\"dt\": 0.5, \"frames\": 0}: solver.frames: expected an integer >= 1, got 0"},
      {"bodies.0.material.mass=3",
       "--set bodies.0.material.mass=3: bodies.0.material.mass: give either \"density\" or "
       "\"mass\", not both"},
      {"bodies.0.material.model=neo",
       "--set bodies.0.material.model=neo: bodies.0.material.model: expected one of \"arap\", "
       "\"corotational\", \"neo_hookean\", got \"neo\" (did you mean \"neo_hookean\"?)"},
      {"bodies.0.material.thickness=0",
       "--set bodies.0.material.thickness=0: bodies.0.material.thickness: expected a number > 0, "
       "got 0"},
      {"bodies.0.bending.type=isometric",
       "--set bodies.0.bending.type=isometric: bodies.0.bending.type: expected \"none\" (bending "
       "needs a cloth mesh; this body's mesh is \"icosphere\"), got \"isometric\""},
      {"bodies.0.bending.stiffness=-0.5",
       "--set bodies.0.bending.stiffness=-0.5: bodies.0.bending.stiffness: expected a number >= 0, "
       "got -0.5"},
      {"bodies.0.mesh.vertices=[101,100]",
       "--set bodies.0.mesh.vertices=[101,100]: bodies.0.mesh.vertices: unknown key \"vertices\" "
       "for mesh type \"icosphere\" (allowed: \"type\", \"radius\", \"subdivisions\", "
       "\"tetgen\")"},
      {"bodies.0.mesh={\"type\": \"cloth\", \"vertices\": [4, 4, 4]}",
       "--set bodies.0.mesh={\"type\": \"cloth\", \"vertices\": [4, 4, 4]}: "
       "bodies.0.mesh.vertices: expected an array of 2 integers [nx, nz] for mesh type \"cloth\", "
       "got an array of 3"},
  };
  check_bad_overrides(BASE, bad, (int)(sizeof bad / sizeof bad[0]));

  /* an error outside the overridden values still points into the file */
  const char *dt = "solver.dt=0.02";
  rc = load("{\n  'solver': {'dt': 0.01, 'frames': -3},\n  'bodies': [" B "]\n}", &dt, 1, &st);
  CHECK_INT(rc, SIM_ERR_SCENE);
  CHECK_MSG(st, "bad.json:2:36: solver.frames: expected an integer >= 1, got -3");
  /* the last override of a value is the one blamed */
  const char *two[] = {"solver.dt=-1", "solver.dt=-2"};
  rc = load(BASE, two, 2, &st);
  CHECK_MSG(st, "--set solver.dt=-2: solver.dt: expected a number >= 1e-09, got -2");
}

/* A step with a ramp: the speed rises linearly to full over `ramp`, holds, and falls to 0
   over the last `ramp`; the step lasts its amount / speed + ramp and ends where one without a
   ramp ends. Positions against the closed form, velocities by central differences. */
static void test_script_ramp(void) {
  sim_pin_step s[2];
  memset(s, 0, sizeof s);
  s[0].kind = SIM_STEP_PULLING;
  s[0].direction[0] = 1;
  s[0].speed = 2, s[0].length = 3, s[0].ramp = 0.5; /* lasts 2 s: 0.5 ramp, 1 cruise, 0.5 */
  s[1].kind = SIM_STEP_ROLLING;
  s[1].axis[2] = 1;
  s[1].speed = -90, s[1].angle = 90, s[1].ramp = 1; /* lasts 2 s, a quarter turn clockwise */
  const double x0[3] = {0, 0, 0};
  double x[3], a[3], b[3];
  const double tt[] = {0.25, 0.5, 1.0, 1.5, 1.75, 2.0};
  const double want[] = {0.125, 0.5, 1.5, 2.5, 2.875, 3.0}; /* v t^2 / 2r, v (t - r / 2), ... */
  for (int i = 0; i < 6; i++) {
    sim_script_apply(s, 1, tt[i], x0, x);
    CHECK_NEAR(x[0], want[i], 1e-15);
  }
  const double e = 1e-6; /* speed: 0 at both ends, 2 m/s at full, 1 m/s halfway up the ramp */
  const double tv[] = {0.0 + e, 0.25, 1.0, 2.0 - e};
  const double wv[] = {0, 1, 2, 0};
  for (int i = 0; i < 4; i++) {
    sim_script_apply(s, 1, tv[i] - e, x0, a);
    sim_script_apply(s, 1, tv[i] + e, x0, b);
    CHECK_NEAR((b[0] - a[0]) / (2 * e), wv[i], 1e-5);
  }
  /* the rolling step after it: (3, 0, 0) turned about z through the origin */
  const double p0[3] = {-3, 0, 0};
  sim_script_apply(s, 2, 4.0, p0, x); /* -3 + 3 = 0: stays at the origin */
  CHECK_NEAR(fabs(x[0]) + fabs(x[1]), 0, 1e-15);
  const double p1[3] = {-2, 0, 0}; /* at (1, 0, 0) when the rolling step starts */
  sim_script_apply(s, 2, 3.0, p1, x); /* halfway: 45 degrees clockwise */
  CHECK_NEAR(x[0], sqrt(0.5), 1e-15);
  CHECK_NEAR(x[1], -sqrt(0.5), 1e-15);
  sim_script_apply(s, 2, 4.0, p1, x);
  CHECK_NEAR(x[0], 0, 1e-15);
  CHECK_NEAR(x[1], -1, 1e-15);
  sim_script_apply(s, 2, 2.5, p1, x); /* a quarter into its ramp: 90 * 0.5^2 / 2 = 11.25 deg */
  CHECK_NEAR(x[0], cos(11.25 * SIM_PI / 180), 1e-15);
  CHECK_NEAR(x[1], -sin(11.25 * SIM_PI / 180), 1e-15);
  /* without a ramp, the constant speed as before */
  s[0].ramp = 0;
  sim_script_apply(s, 1, 0.75, x0, x);
  CHECK(x[0] == 1.5);
}

static void test_round_trip(void) {
  sim_status st;
  const char *files[] = {"data/scenes/loader_full.json", "data/scenes/twisting_bar.json",
                         "data/scenes/loader_cloth.json", "data/scenes/loader_cable.json"};
  for (int f = 0; f < 4; f++) {
    int rc = sim_scene_load(files[f], NULL, 0, &g_scene, &st);
    CHECK_INT(rc, SIM_OK);
    char *text = NULL, *text2 = NULL;
    CHECK_INT(sim_scene_to_json(&g_scene, &text), SIM_OK);
    if (!text) continue;
    /* loaded from the current directory, the resolved mesh paths stay as they are */
    rc = sim_scene_load_string(text, "roundtrip.json", NULL, 0, &g_scene2, &st);
    CHECK_INT(rc, SIM_OK);
    if (rc) fprintf(stderr, "  %s\n%s\n", st.msg, text);
    CHECK(strcmp(g_scene2.file, "roundtrip.json") == 0);
    memcpy(g_scene2.file, g_scene.file, sizeof g_scene.file);
    check_report(memcmp(&g_scene, &g_scene2, sizeof g_scene) == 0, __FILE__, __LINE__,
                 "%s: sim_scene_to_json -> load gives the same struct", files[f]);
    CHECK_INT(sim_scene_to_json(&g_scene2, &text2), SIM_OK);
    CHECK(text2 && strcmp(text, text2) == 0);
    free(text);
    free(text2);
  }
  /* a value that needs 17 digits survives */
  const char *ovr = "solver.dt=0.30000000000000004";
  CHECK_INT(load(BASE, &ovr, 1, &st), SIM_OK);
  char *text = NULL;
  CHECK_INT(sim_scene_to_json(&g_scene, &text), SIM_OK);
  CHECK_INT(sim_scene_load_string(text, "rt.json", NULL, 0, &g_scene2, &st), SIM_OK);
  CHECK(g_scene2.solver.dt == 0.1 + 0.2);
  free(text);
  /* pins write their mode and compliance, the defaults included */
  CHECK_INT(sim_scene_load(files[0], NULL, 0, &g_scene, &st), SIM_OK);
  CHECK_INT(sim_scene_to_json(&g_scene, &text), SIM_OK);
  if (text) {
    CHECK_STR_CONTAINS(text, "\"mode\": \"eliminate\",\n      \"compliance\": 0,\n");
    CHECK_STR_CONTAINS(text, "\"mode\": \"constraint\",\n      \"compliance\": 0.002,\n");
    free(text);
  }
  /* the new fields are written out, defaults included */
  const char *cloth = "bodies.0.mesh={\"type\": \"cloth\", \"vertices\": [5, 7]}";
  CHECK_INT(load(BASE, &cloth, 1, &st), SIM_OK);
  CHECK_INT(sim_scene_to_json(&g_scene, &text), SIM_OK);
  if (!text) return;
  CHECK_STR_CONTAINS(text,
                     "\"type\": \"cloth\",\n        \"size\": [1, 1],\n"
                     "        \"vertices\": [5, 7],\n        \"pattern\": \"diagonal\"\n");
  CHECK_STR_CONTAINS(text, "\"model\": \"arap\"");
  CHECK_STR_CONTAINS(text, "\"thickness\": 0.001\n");
  CHECK_STR_CONTAINS(text,
                     "\"bending\": {\n        \"type\": \"none\",\n"
                     "        \"stiffness\": 0.001\n      }");
  CHECK_INT(sim_scene_load_string(text, "rt.json", NULL, 0, &g_scene2, &st), SIM_OK);
  memcpy(g_scene2.file, g_scene.file, sizeof g_scene.file);
  CHECK(memcmp(&g_scene, &g_scene2, sizeof g_scene) == 0);
  free(text);
}

int main(void) {
  size_t mem0 = sim_mem_in_use();
  test_defaults();
  test_full_scene();
  test_paper_scene();
  test_cloth_scene();
  test_bad_scenes();
  test_overrides();
  test_script_ramp();
  test_round_trip();
  CHECK_INT(sim_mem_in_use(), mem0); /* every sim_malloc freed */
  return check_summary("test_scene");
}
