/* SPDX-License-Identifier: MIT */
/* What this simctl was built with and what it runs with (simctl --version's lines after the
   first): its backends, its libraries' versions as linked, and the tetgen program it would run. */
#include <cholmod.h>
#include <cjson/cJSON.h>
#include <limits.h>
#include <omp.h>
#include <png.h>

#include "../base/cpu_simd.h"
#include "../mesh/mesh.h"
#include "../simctl.h"
#include "../solve/backend.h"

void sim_build_info(FILE *f) {
  const char *archs = sim_cuda_archs();
  fprintf(f, "backends: cpu (OpenMP, up to %d threads; its hot loops' %s)", omp_get_max_threads(),
          sim_cpu_simd_name());
  if (archs)
    fprintf(f,
            ", cuda (kernels for %s; simctl devices lists the GPUs, the CUDA runtime and the "
            "driver)\n",
            archs);
  else
    fprintf(f, "; built without CUDA\n");
  int v[3];
  cholmod_version(v);
  fprintf(f, "libraries: CHOLMOD %d.%d.%d (built against %d.%d.%d), cJSON %s, libpng %s\n", v[0],
          v[1], v[2], CHOLMOD_MAIN_VERSION, CHOLMOD_SUB_VERSION, CHOLMOD_SUBSUB_VERSION,
          cJSON_Version(), png_get_libpng_ver(NULL));
  char buf[PATH_MAX];
  const char *from = "";
  const char *prog = sim_tetgen_program(buf, sizeof buf, &from);
  fprintf(f, "meshing: the tetgen program '%s' (%s)\n", prog, from);
}
