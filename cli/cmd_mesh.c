/* SPDX-License-Identifier: MIT */
/* simctl mesh: the TetGen front end. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/mesh/mesh.h"
#include "../core/simctl.h"
#include "cli.h"

static const char *MESH_USAGE =
    "usage: simctl mesh SURFACE [--quality Q] [--max-volume V] [--switches S] -o|--output OUT\n"
    "\n"
    "Checks that SURFACE (.obj, .off, .stl) is closed and manifold, tetrahedralises it with\n"
    "the tetgen program (cached by content and switches) and writes OUT: .node (with .ele\n"
    "beside it) or .vtk (legacy binary).\n"
    "\n"
    "  --quality Q      radius-edge bound, TetGen -q (default 1.414; 0 = no quality switch)\n"
    "  --max-volume V   largest tet volume, TetGen -a (default none)\n"
    "  --switches S     extra TetGen switches appended verbatim (letters, digits, '.', '/';\n"
    "                   not q or a, which --quality and --max-volume set)\n"
    "  -o, --output OUT the tet mesh to write\n";

static int parse_double(const char *opt, const char *v, double *out) {
  char *end = NULL;
  if (!v) return cli_error(SIM_ERR_USAGE, "%s needs a number", opt);
  *out = strtod(v, &end);
  if (end == v || *end != '\0' || !isfinite(*out) || *out < 0)
    return cli_error(SIM_ERR_USAGE, "%s: expected a finite number >= 0, got '%s'", opt, v);
  return 0;
}

int cmd_mesh(int argc, char **argv) {
  const char *surface = NULL, *out = NULL, *switches = NULL, *v = NULL;
  double quality = 1.414, max_volume = 0;
  int rc;
  for (int i = 2; i < argc; i++) {
    if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
      fputs(MESH_USAGE, stdout);
      return 0;
    }
    if (cli_take_value(argc, argv, &i, "--quality", &v)) {
      if ((rc = parse_double("--quality", v, &quality))) return rc;
      if (quality > 0 && quality < 1) /* as the scene's tetgen.quality: TetGen may not end */
        return cli_error(SIM_ERR_USAGE, "--quality: expected 0 (off) or a number >= 1, got '%s'",
                         v);
    } else if (cli_take_value(argc, argv, &i, "--max-volume", &v)) {
      if ((rc = parse_double("--max-volume", v, &max_volume))) return rc;
    } else if (cli_take_value(argc, argv, &i, "--switches", &v)) {
      if (!v) return cli_error(SIM_ERR_USAGE, "--switches needs a value");
      char bad = sim_tetgen_bad_switch(v);
      if (bad)
        return cli_error(SIM_ERR_USAGE,
                         "--switches: character '%c' is not allowed in '%s' (expected letters, "
                         "digits, '.' and '/', but none of %s: q and a come from --quality and "
                         "--max-volume)",
                         bad, v, SIM_TETGEN_REFUSED);
      switches = v;
    } else if (cli_take_value(argc, argv, &i, "-o", &v) ||
               cli_take_value(argc, argv, &i, "--output", &v)) {
      if (!v) return cli_error(SIM_ERR_USAGE, "-o needs an output file");
      out = v;
    } else if (argv[i][0] == '-') {
      return cli_error(SIM_ERR_USAGE, "unknown option %s (see simctl mesh --help)", argv[i]);
    } else if (!surface) {
      surface = argv[i];
    } else {
      return cli_error(SIM_ERR_USAGE, "unexpected argument %s", argv[i]);
    }
  }
  if (!surface) return cli_error(SIM_ERR_USAGE, "no surface file given (see simctl mesh --help)");
  if (!out) return cli_error(SIM_ERR_USAGE, "no output given: -o OUT.node or -o OUT.vtk");
  sim_status st = {0};
  if (sim_mesh_file(surface, quality, max_volume, switches, out, stdout, &st))
    return cli_error(st.code, "%s", st.msg);
  return 0;
}
