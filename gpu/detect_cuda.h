/* SPDX-License-Identifier: MIT */
/* Collision detection on the device (DESIGN.md Sec. 7): the same contacts as sim_detect_run
   (core/contact/detect.h) from the same inputs, found by core/contact/detect_vertex.h's code
   in a thread per vertex. What runs where:
   - device: the body surfaces' BVH refit (gpu/bvh_cuda.h dev_forest), a pass that queries
     each vertex once and keeps its contacts in the vertex's slots, an exclusive scan of the
     counts (CUB), and a pass that copies each vertex's contacts to its offset, so the output
     is in (vertex, kind, source) order like the host's, whatever the thread schedule (where
     the slots would take over 64 MB, or with SIMCTL_CUDA_DETECT_SLOTS=off, the first pass
     only counts and the second queries again to write them);
   - host: the checks, the moving mesh obstacles' refit (a few hundred triangles), and the copies:
     the positions (and previous positions) up, the posed obstacles, then the contacts down.
   The first run with a sim_detect (told apart by its serial number) copies its trees,
   triangles and body map to the device; they are the same for every later run, and a run with
   another sim_detect copies them again. Pinned flags, poses and the moving meshes' vertices go
   up every run, and so do the positions unless the detector holds device twins of them
   (sim_cuda_detect_keep: the CUDA backend's detect_download of q_t, q~ and the step's end,
   whose device copies the run reads), without a wait: the scene's arrays are ordinary (pageable)
   host memory, which a copy to the device stages before it returns (not page-locked memory,
   which the copy would read later). A run waits once for the contact count and the contacts
   where they fit a guess that follows the counts seen (gpu/landing_cuda.h), else a second
   time for the rest; the passes of a step (q_t's and the prediction's) wait once together.
   Usable from C. In a build without CUDA, gpu/backend_none.c's
   versions of these functions report SIM_ERR_DEVICE. */
#ifndef SIM_GPU_DETECT_CUDA_H
#define SIM_GPU_DETECT_CUDA_H
#include <stddef.h>

#include "../core/contact/detect_points.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct sim_cuda_detect sim_cuda_detect;

/* A detector queueing its work on `stream` (a cudaStream_t; NULL: one of its own). */
int sim_cuda_detect_create(void *stream, sim_cuda_detect **out, sim_status *st);
/* sim_detect_runner's run, ctx = a sim_cuda_detect. */
int sim_cuda_detect_run(void *ctx, sim_detect *d, const sim_detect_scene *s,
                        const sim_detect_params *p, sim_detect_contacts *out, sim_status *st);
/* sim_detect_runner's passes, ctx = a sim_cuda_detect: each pass queued (inputs up, refit,
   count, scan, write, the copies down) and the points pass with pts, then one wait for all,
   then a second wait for each pass whose contacts exceed its guess (each pass has its own
   landing; a run is pass 0). */
int sim_cuda_detect_passes(void *ctx, sim_detect *d, int n, const sim_detect_scene *s,
                           const sim_detect_params *p, sim_detect_contacts *const *out,
                           const sim_detect_points_job *pts, sim_status *st);
/* sim_detect_runner's points (the mesh obstacles' points against the bodies' triangles,
   core/contact/detect_points.h; gpu/points_cuda.h says what runs where), ctx = a sim_cuda_detect,
   on its stream. */
int sim_cuda_detect_points(void *ctx, sim_point_scene *s, sim_detect_contacts *out,
                           unsigned char *found, sim_status *st);
/* Host array `host` (n doubles) now holds what device array `dev` holds (a download just made;
   the copy is queued on the detector's stream, after what was queued there before): later runs
   and points passes handed `host` as positions read this twin instead of an upload of `host`,
   until a keep of another array evicts it (gpu/twins_cuda.h: the four most
   recent are kept). The caller must not write `host` before it is handed over. */
int sim_cuda_detect_keep(sim_cuda_detect *k, const double *host, const double *dev, size_t n,
                         sim_status *st);
/* Host array `host` (n doubles) made whole from its twin, the device copy a keep left (a
   wait); SIM_ERR_DEVICE where it has none. */
int sim_cuda_detect_fetch(sim_cuda_detect *k, double *host, size_t n, sim_status *st);
/* Position arrays read from twins and uploaded by the runs so far (0 and 0 for NULL). */
void sim_cuda_detect_twin_counts(const sim_cuda_detect *k, long long *hits, long long *misses);
/* Runs so far that waited a second time for the device: more contacts than the landing
   guessed (gpu/landing_cuda.h: what the run before found and a quarter more, the more at most
   256, at least 64), the
   vertex pass and the points pass together (0 for NULL). */
long long sim_cuda_detect_second_waits(const sim_cuda_detect *k);
/* The host's waits for contacts in the runs, passes and points passes so far, second waits
   included (0 for NULL). */
long long sim_cuda_detect_waits(const sim_cuda_detect *k);
/* The device list that a contact with dev_ref `ref` (core/contact/contact.h) came from, as
   the detector still holds it: its contacts (*held of them, dev_slot their places), or NULL
   where a later run of that pass has replaced it (or ref is 0). On the detector's stream;
   valid until the next run or points pass is queued. */
const sim_contact *sim_cuda_detect_list(const sim_cuda_detect *k, int ref, int *held);
/* The copy of c that a run left on the device (its dev_ref and dev_slot) into *out, with a
   wait, and *held = 1; *held = 0 where the detector no longer holds it (a check for tests). */
int sim_cuda_detect_copy(const sim_cuda_detect *k, const sim_contact *c, sim_contact *out,
                         int *held, sim_status *st);
/* Body b's tree (the host's sim_bvh of it, d->body_bvh[b]) as the device's last run refit it:
   its *nnodes nodes into out (room for the host tree's), with a wait; *nnodes = 0 where the
   detector holds no body b (a check for tests). */
int sim_cuda_detect_body_tree(const sim_cuda_detect *k, int b, sim_bvh_node *out, int *nnodes,
                              sim_status *st);
/* Contacts the device found in the runs and passes so far (the vertex passes' counts, before
   the host dropped any: a skip_first pass found only what its device skip list missed; 0 for
   NULL). */
long long sim_cuda_detect_found(const sim_cuda_detect *k);
size_t sim_cuda_detect_bytes(const sim_cuda_detect *k); /* device memory it holds */
void sim_cuda_detect_destroy(sim_cuda_detect *k);

#ifdef __cplusplus
}
#endif
#endif
