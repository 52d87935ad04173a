// SPDX-License-Identifier: MIT
// The mesh obstacles' points against the bodies' triangles on the device (core/contact/
// detect_points.h), private to gpu/; the CUDA detector runs it (detect_cuda.h,
// sim_cuda_detect_points). What runs where:
// - device: the bodies' trees refit to q_t, a thread per point (detect_point.h's code) writing
//   its contact into its own slot, the trees refit to q~ and the points without a contact again,
//   then a count, an exclusive scan (CUB) and a compaction in point order;
// - host: the copies (positions up, or from their device twins: twins_cuda.h; pinned flags and
//   the moving meshes' points up; the found flags, the contact count and the contacts down) and
//   the final sort by key, so the contacts come out as the host's pass gives them.
// The first run with a scene (told apart by its serial) copies its trees' topology, triangles,
// points and the meshes' masks and friction; a run with another scene copies them again. A run
// waits once for the flags, the count and the contacts where they fit the landing's guess
// (landing_cuda.h), else a second time for the rest; the detector's passes
// (sim_cuda_detect_passes) queue it with the vertex passes, before their one wait.
#ifndef SIM_GPU_POINTS_CUDA_H
#define SIM_GPU_POINTS_CUDA_H
#include "cuda_ctx.h"

extern "C" {
#include "../core/contact/detect_points.h"
}

typedef struct cuda_points cuda_points;

int sim_cuda_points_create(cudaStream_t stream, cuda_points **out, sim_status *st);
// A run's device work and its copies down (into page-locked memory) queued, without a wait
// (tw: the detector's twins of host position arrays, twins_cuda.h, or NULL: upload them all);
// take, after the caller's wait for the stream, gives the contacts and flags (a second wait
// where there are more contacts than the landing guessed). s must be the same for both.
// ref (nonzero): the run's contacts' dev_ref (core/contact/contact.h), their slots their places
// in the packed list, which the device keeps until the next run (sim_cuda_points_list).
int sim_cuda_points_queue(cuda_points *k, sim_point_scene *s, struct cuda_twins *tw, int ref,
                          sim_status *st);
int sim_cuda_points_take(cuda_points *k, sim_point_scene *s, sim_detect_contacts *out,
                         unsigned char *found, sim_status *st);
int sim_cuda_points_queued(const cuda_points *k);  // a run is queued, not yet taken
// The device list of the last run taken where its reference is `ref` (*held: its contacts),
// else NULL.
const sim_contact *sim_cuda_points_list(const cuda_points *k, int ref, int *held);
size_t sim_cuda_points_bytes(const cuda_points *k);  // device memory it holds
// runs that waited a second time (more contacts than the landing guessed; 0 for NULL)
long long sim_cuda_points_second_waits(const cuda_points *k);
void sim_cuda_points_destroy(cuda_points *k);

#endif
