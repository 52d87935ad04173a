/* SPDX-License-Identifier: MIT */
/* Scene description: plain structs filled by the JSON loader, checked once by validation. */
#ifndef SIM_SCENE_H
#define SIM_SCENE_H
#include "../base/status.h"

#define SIM_MAX_BODIES 16
#define SIM_MAX_PINS 16
#define SIM_MAX_STEPS 16
#define SIM_MAX_OBSTACLES 64
#define SIM_MAX_CABLES 8
#define SIM_MAX_CABLE_POINTS 32
#define SIM_MAX_CABLE_KEYS 16
#define SIM_PATH_MAX 1024

typedef enum {
  SIM_GLOBAL_AUTO,
  SIM_GLOBAL_SPARSE_INVERSE, /* q = S^T (S b), the paper's method */
  SIM_GLOBAL_CHOLESKY,       /* CHOLMOD triangular solves */
  SIM_GLOBAL_JACOBI,         /* one Jacobi iteration per L-G iteration (Wang 2015) */
  SIM_GLOBAL_DENSE_INVERSE   /* a dense A_s^{-1}, small meshes only */
} sim_global_kind;
#define SIM_GLOBAL_COUNT 5
typedef enum { SIM_DEVICE_AUTO, SIM_DEVICE_CPU, SIM_DEVICE_CUDA } sim_device_kind;
typedef enum { SIM_PREC_DOUBLE, SIM_PREC_FLOAT } sim_precision;
typedef enum {
  SIM_ORDER_METIS,
  SIM_ORDER_AMD,
  SIM_ORDER_NESDIS,
  SIM_ORDER_BEST, /* the one of the three with the fewest nonzeros in S */
  SIM_ORDER_COUNT
} sim_ordering;

typedef struct sim_solver_def {
  double dt;         /* time step h, s (> 0) */
  int frames;        /* frames to simulate (>= 1) */
  int lg_iterations; /* local-global iterations per frame (>= 1) */
  sim_global_kind global;
  sim_device_kind device;
  sim_precision precision;
  sim_ordering ordering;
  int threads; /* 0 = OpenMP default */
  double chebyshev_rho; /* Chebyshev acceleration of the L-G iterations with this spectral
                           radius estimate (Wang 2015): on top of jacobi, or of an exact global
                           solver (accelerated complete solver); 0 = off; in [0, 1) */
  double dense_max_mib; /* dense_inverse only: refuse when A_s^{-1} would need more (MiB) */
  int gpu; /* the CUDA device the CUDA backend runs on (CUDA's index, as CUDA_VISIBLE_DEVICES
              numbers them; 0 = the first) */
} sim_solver_def;

typedef enum {
  SIM_SRC_BAR,       /* box tet grid: lo, hi, vertices[3] */
  SIM_SRC_ICOSPHERE, /* radius, subdivisions -> TetGen */
  SIM_SRC_BOX,       /* closed box surface lo, hi, segments -> TetGen */
  SIM_SRC_CYLINDER,  /* radius, height, segments, rings -> TetGen */
  SIM_SRC_CAPSULE,   /* radius, height, segments, rings -> TetGen */
  SIM_SRC_FILE,      /* surface file (-> TetGen) or tet mesh file (used as is) */
  SIM_SRC_CLOTH      /* flat triangle grid in the x-z plane: size[2], vertices[0..1] */
} sim_mesh_source_kind;

typedef struct sim_mesh_def {
  sim_mesh_source_kind kind;
  double lo[3], hi[3]; /* bar, box */
  int vertices[3];     /* bar: vertex counts per axis (>= 2); cloth: [nx, nz] (>= 2 each) */
  double radius, height;
  double size[2];      /* cloth: side lengths along x and z, m (default 1 x 1) */
  int cloth_cross;     /* cloth "pattern": 0 "diagonal" (2 triangles per grid cell, alternating
                          diagonals), 1 "cross" (4 triangles around a centre vertex per cell,
                          the paper's cloth: 51 x 51 corners give 5,101 vertices, 10,000 tris) */
  int subdivisions, segments, rings;
  char path[SIM_PATH_MAX]; /* file: resolved relative to the scene file's directory */
  /* TetGen switches for surface sources */
  double tet_quality;    /* -q radius-edge ratio (default 1.414; 0 = off) */
  double tet_max_volume; /* -a (default 0 = none) */
} sim_mesh_def;

typedef struct sim_transform_def {
  double translate[3];
  double rotate_deg[3]; /* applied about x, then y, then z (R = Rz Ry Rx) */
  double scale[3];      /* applied first */
} sim_transform_def;

typedef enum {
  SIM_MAT_ARAP,         /* "arap": projective dynamics, zeta = rotations */
  SIM_MAT_COROTATIONAL, /* "corotational": linear corotated, through ADMM-PD */
  SIM_MAT_NEOHOOKEAN    /* "neo_hookean": stable Neo-Hookean (Smith 2018), through ADMM-PD */
} sim_material_model;
#define SIM_MAT_COUNT 3
typedef enum { SIM_BEND_NONE, SIM_BEND_ISOMETRIC, SIM_BEND_LAPLACE_BELTRAMI } sim_bending_kind;
#define SIM_BEND_COUNT 3
typedef enum { SIM_LUMP_UNIFORM, SIM_LUMP_VOLUME } sim_lumping;

typedef struct sim_material_def {
  sim_material_model model;
  double density;    /* kg/m^3; used when mass <= 0 */
  double mass;       /* total kg; > 0 overrides density */
  sim_lumping lumping; /* uniform: m_i = mass / n (paper); volume: a quarter of each tet */
  double youngs_modulus; /* Pa, > 0 */
  double poisson_ratio;  /* in (-1, 0.5) */
  double thickness;      /* cloth only: shell thickness, m (> 0, default 0.001); V = area x it */
} sim_material_def;

typedef struct sim_bending_def {
  sim_bending_kind type; /* cloth only; default none */
  double stiffness;      /* k >= 0, N m (energy k/2 x integral of squared curvature) */
} sim_bending_def;

typedef struct sim_body_def {
  char name[64];
  sim_mesh_def mesh;
  sim_transform_def transform;
  sim_material_def material;
  sim_bending_def bending;
  double velocity[3]; /* initial velocity, m/s */
} sim_body_def;

typedef enum { SIM_STEP_PULLING, SIM_STEP_ROLLING, SIM_STEP_WAIT } sim_step_kind;

typedef struct sim_pin_step {
  sim_step_kind kind;
  double direction[3]; /* pulling: unit direction (normalised on load) */
  double speed;        /* pulling: m/s; rolling: deg/s (signed) */
  double length;       /* pulling: m (> 0) */
  double axis[3];      /* rolling: unit axis */
  double center[3];    /* rolling: a point on the axis */
  double angle;        /* rolling: total degrees (> 0) */
  double duration;     /* wait: s (> 0) */
  double ramp;         /* pulling, rolling: s (>= 0) to reach speed and to stop again */
} sim_pin_step;

/* How a pin holds its vertices (DESIGN.md Sec. 6): eliminated from the unknowns (they follow
   the script exactly), or kept free and held by bilateral constraint rows H_b q - d_b +
   E_b lambda_b = 0 in the contact solve (d_b the script's position at t + h, E_b the
   compliance; core/contact/contact.h SIM_CONTACT_BILATERAL). */
typedef enum { SIM_PIN_ELIMINATE, SIM_PIN_CONSTRAINT, SIM_PIN_MODE_COUNT } sim_pin_mode;

typedef struct sim_pin_def {
  int body;      /* body index */
  double box[6]; /* world-space AABB xmin ymin zmin xmax ymax zmax */
  sim_pin_mode mode; /* "eliminate" (default) or "constraint" */
  double compliance; /* constraint pins: E_b >= 0 in m/N per vertex and axis (0: hard) */
  int nsteps;
  sim_pin_step steps[SIM_MAX_STEPS];
} sim_pin_def;

/* A cable (the paper's soft gripper, Fig. 11; DESIGN.md Sec. 6 "cable constraints"): a string
   threaded through points embedded in one body, held at a target length by one bilateral row
   (core/contact/contact.h SIM_CONTACT_CABLE). Its length is the polyline's,
     L(x) = sum_i |x_{i+1} - x_i|,  x_i = the embedded point i (barycentric in its tetrahedron),
   and the target is L_rest - s(t): the rest length (at t = 0) less the pull s(t) (m, > 0
   shortens), piecewise linear through the keys (t_k, s_k), starting from s(0) = 0 when the
   first key's time is > 0, held at the last key after it. E_c = compliance (m/N, 0 = hard):
   L = L_target - E_c lambda. */
typedef struct sim_cable_def {
  int body;            /* body index */
  int npoints;         /* 2..SIM_MAX_CABLE_POINTS */
  double points[SIM_MAX_CABLE_POINTS][3]; /* world positions at t = 0 (after the body's
                                             transform), each inside one of the body's
                                             tetrahedra (checked by core/model/cable.c) */
  double compliance;   /* E_c >= 0, m/N (0: hard) */
  int nkeys;           /* 0..SIM_MAX_CABLE_KEYS: "pull" keys, times strictly increasing */
  double key_time[SIM_MAX_CABLE_KEYS];  /* s, >= 0 */
  double key_pull[SIM_MAX_CABLE_KEYS];  /* m, shortening (< rest length) */
} sim_cable_def;

/* Contact solve and collision detection settings (DESIGN.md Secs. 6-7; the paper's scenes:
   Fischer-Burmeister, 10 CR iterations, a force cap "maxforce"). */
typedef enum {
  SIM_SCENE_NCP_FISCHER_BURMEISTER, /* "fischer_burmeister" (default), = SIM_NCP_* of ncp.h */
  SIM_SCENE_NCP_MIN_MAP             /* "min_map" */
} sim_scene_ncp;
#define SIM_SCENE_NCP_COUNT 2
typedef enum {
  SIM_SCENE_PRECOND_DELASSUS, /* "delassus": r = h^2 W_jj (Eq. 28, the paper) */
  SIM_SCENE_PRECOND_MASS      /* "mass": h^2 [H M^-1 H^T]_jj (Macklin et al. 2019) */
} sim_scene_precond;
#define SIM_SCENE_PRECOND_COUNT 2
typedef enum {
  SIM_SCENE_DELASSUS_AUTO,     /* "auto": dense up to the backend's bound (stage.h), else
                                  operator; dense as blocks where the host applies W */
  SIM_SCENE_DELASSUS_DENSE,    /* "dense": W = H A^-1 H^T formed once per step */
  SIM_SCENE_DELASSUS_OPERATOR, /* "operator": W x = H A^-1 H^T x by a solve per product */
  SIM_SCENE_DELASSUS_BLOCKS    /* "blocks": W's block form (contact/wblocks.h) where the host
                                  applies W, else as "dense" */
} sim_scene_delassus;
#define SIM_SCENE_DELASSUS_COUNT 4
typedef enum {
  SIM_SCENE_FORM_COMPLIANCE, /* "compliance": force H^T lambda, (W + Omega^-1 E) dlambda (nsn.h) */
  SIM_SCENE_FORM_PAPER       /* "paper": force J^T lambda, J = Omega H (Eqs. 22-23 as printed) */
} sim_scene_form;
#define SIM_SCENE_FORM_COUNT 2
typedef enum {
  SIM_SCENE_CR_JACOBI, /* "jacobi": CR preconditioned by the system's diagonal */
  SIM_SCENE_CR_NONE    /* "none": plain CR */
} sim_scene_cr_pc;
#define SIM_SCENE_CR_PC_COUNT 2
typedef enum {
  SIM_SCENE_FJAC_LAGGED, /* "lagged": the friction rows' e frozen, a symmetric system for CR
                            (the paper's) */
  SIM_SCENE_FJAC_EXACT   /* "exact": their exact Jacobian, the system solved by GMRES
                            (core/contact/nsn_exact.h) */
} sim_scene_fjac;
#define SIM_SCENE_FJAC_COUNT 2

typedef struct sim_contact_def {
  double margin;         /* m, >= 0: a contact exists within this distance (default 0.01) */
  double min_separation; /* m, in [0, margin]: the gap the normal rows enforce (default 0) */
  sim_scene_ncp ncp;
  sim_scene_precond preconditioner;
  int cr_iterations;   /* Conjugate Residual iterations per L-G iteration, 1..1000 (10) */
  double cr_tolerance; /* >= 0; 0 = the fixed count cr_iterations */
  double max_force;    /* N, >= 0: cap on a contact's normal force; 0 = no cap */
  int warm_start;      /* 0/1: start lambda from the previous step's contacts (1) */
  int bodies;          /* 0/1: deformable-deformable contact between different bodies (1) */
  int self_collision;  /* 0/1: a body against its own surface (0) */
  int edge_edge;       /* 0/1: the bodies' surface edges against each other's, where body-body
                          contact or self-collision is on (0) */
  int obstacle_edges;  /* 0/1: the bodies' surface edges against the analytic obstacles, where an
                          edge dips into one between its vertices (0) */
  int creases;         /* 0/1: a vertex in a fold of a body's surface (within the margin of two
                          of its faces meeting at over 25.8 degrees) has a contact with each
                          face, where body-body contact or self-collision is on (1) */
  double mu;           /* >= 0: friction coefficient between bodies (and within one) (0) */
  sim_scene_delassus delassus; /* how W is applied (auto) */
  sim_scene_form formulation;  /* the Newton system's form (compliance) */
  sim_scene_cr_pc cr_preconditioner; /* (jacobi) */
  sim_precision cr_precision;  /* W in Conjugate Residual's products where W is dense (double):
                                  float reads a float copy of it; the Newton step's residuals,
                                  its line search and the correction keep W in double */
  int newton_steps;            /* most non-smooth Newton steps per L-G iteration, 1..100 (3) */
  double newton_tolerance;     /* m, >= 0: no further step once max |phi| <= this (1e-8);
                                  0 = always newton_steps */
  int end_newton_steps;        /* 0..100 Newton steps more at the end of a step's L-G
                                  iterations while max |phi| > end_tolerance (20; 0 = none, the
                                  paper's fixed budget) */
  double end_tolerance;        /* m, >= 0: what end_newton_steps work to (1e-4; 0 = none) */
  int redetect;                /* 0..10 re-detections at a step's end (3; 0 = the paper's once
                                  per step): vertices that ended inside something without a
                                  contact get one, and the step is solved again from its
                                  prediction (core/solve/stepper.h) */
  int line_search;             /* 0..30 step halvings of each Newton step on 1/2 |phi|^2 (8;
                                  0 = the full step, the paper; compliance formulation only) */
  sim_scene_fjac newton_jacobian; /* the Newton system's friction rows (lagged; exact needs
                                       the compliance formulation) */
} sim_contact_def;

/* Obstacle shapes; the first six in the order of sim_obstacle_kind (core/contact/sdf.h). */
typedef enum {
  SIM_OBST_PLANE,    /* point, normal (unit): the solid is the half space behind the normal */
  SIM_OBST_BOX,      /* center, half_extents, rotate_deg */
  SIM_OBST_SPHERE,   /* center, radius */
  SIM_OBST_CAPSULE,  /* a, b (distinct), radius */
  SIM_OBST_CYLINDER, /* point, axis (unit), radius, height (0 = infinite), spin */
  SIM_OBST_TORUS,    /* center, axis (unit), major > minor */
  SIM_OBST_MESH      /* path (OBJ/OFF/STL surface), transform, closed */
} sim_obstacle_type;
#define SIM_OBST_COUNT 7
#define SIM_TOUCHES_ALL 0xffffffffu /* touches: every body (a loaded scene lists them) */
enum { SIM_CLOSED_AUTO = -1, SIM_CLOSED_NO = 0, SIM_CLOSED_YES = 1 }; /* mesh obstacle closed */

typedef struct sim_obstacle_def {
  char name[64]; /* default "obstacle<i>" */
  sim_obstacle_type type;
  double point[3];         /* plane: a point on it; cylinder: on the axis (the middle if finite) */
  double normal[3];        /* plane: unit outward normal (normalised on load) */
  double center[3];        /* box, sphere, torus */
  double half_extents[3];  /* box, m (> 0 each) */
  double rotate_deg[3];    /* box: about x, then y, then z (R = Rz Ry Rx), like a body */
  double a[3], b[3];       /* capsule: segment end points (distinct) */
  double axis[3];          /* cylinder, torus: unit axis (normalised on load) */
  double radius;           /* sphere, capsule, cylinder, m (> 0) */
  double height;           /* cylinder: length along the axis centred at point; 0 = infinite */
  double spin;             /* cylinder: rad/s about axis, right-handed (the surface moves) */
  double major, minor;     /* torus: radius of the core circle and of the tube, major > minor > 0 */
  char path[SIM_PATH_MAX]; /* mesh: resolved relative to the scene file's directory */
  sim_transform_def transform; /* mesh: scale, rotate, translate, as for bodies */
  int closed;                  /* mesh: SIM_CLOSED_AUTO (decided from the mesh), _NO, _YES */
  double mu;                   /* friction coefficient, >= 0 (default 0) */
  double margin;    /* m, >= contact.min_separation: its own contact margin; NAN (default): none,
                       contact.margin applies */
  unsigned touches; /* bit b: collides with body b; SIM_TOUCHES_ALL: every body */
  int nsteps;       /* scripted motion, the same steps as a pin's */
  sim_pin_step steps[SIM_MAX_STEPS];
} sim_obstacle_def;

enum { SIM_OUT_VTK = 1, SIM_OUT_OBJ = 2, SIM_OUT_PNG = 4, SIM_OUT_CSV = 8 };
/* output.async: frame files written by a background thread (core/app/writer_async.h); auto: on
   the CUDA backend (the host waits on the device), not on the CPU one (it would take a core from
   the solver and disturb the timings). */
typedef enum { SIM_ASYNC_AUTO, SIM_ASYNC_OFF, SIM_ASYNC_ON, SIM_ASYNC_COUNT } sim_async_kind;

typedef struct sim_output_def {
  char dir[SIM_PATH_MAX]; /* relative to the current directory */
  int every;              /* write a frame every N frames (>= 1) */
  int formats;            /* SIM_OUT_* bits */
  int png_width, png_height;
  sim_async_kind async;
} sim_output_def;

typedef struct sim_scene {
  char file[SIM_PATH_MAX]; /* path of the scene file as given */
  char name[64];
  sim_solver_def solver;
  double gravity[3];
  int nbodies;
  sim_body_def bodies[SIM_MAX_BODIES];
  int npins;
  sim_pin_def pins[SIM_MAX_PINS];
  int ncables;
  sim_cable_def cables[SIM_MAX_CABLES];
  sim_contact_def contact;
  int nobstacles;
  sim_obstacle_def obstacles[SIM_MAX_OBSTACLES];
  sim_output_def output;
} sim_scene;

/* Defaults for every field (Box2D style). The scene default has no bodies; the body default
   is an icosphere of radius 1. sim_default_mesh gives a mesh of `kind` its defaults (bar and
   box: lo -1, hi 1; bar vertices 2 per axis; cylinder/capsule radius 1, height 2). */
void sim_default_scene(sim_scene *s);
void sim_default_body(sim_body_def *b);
void sim_default_mesh(sim_mesh_def *m, sim_mesh_source_kind kind);
/* Contact: margin 0.01, min_separation 0, Fischer-Burmeister, Delassus preconditioner, 10 CR
   iterations, tolerance 0, no force cap, warm start, body-body contact on, self-collision off. */
void sim_default_contact(sim_contact_def *c);
/* An obstacle of `type` at the origin: normal and axis +y, half_extents 0.5, radius 0.5,
   a/b (0, -+0.5, 0), major 1, minor 0.25, infinite cylinder, identity transform, closed
   "auto", mu 0, no margin of its own, touches every body, no script; name "obstacle". */
void sim_default_obstacle_def(sim_obstacle_def *o, sim_obstacle_type type);

/* Load FILE, apply `noverrides` "PATH=VALUE" strings (--set), fill and validate. On failure
   st->msg is one line "FILE:LINE:COL: JSON.PATH: what was expected" (for --set overrides
   "--set PATH=VALUE: what was expected") and st->code is SIM_ERR_SCENE. */
int sim_scene_load(const char *file, const char *const *overrides, int noverrides,
                   sim_scene *out, sim_status *st);
/* The same from a string (tests); `file` is used in messages and for relative paths. */
int sim_scene_load_string(const char *text, const char *file, const char *const *overrides,
                          int noverrides, sim_scene *out, sim_status *st);
/* Check a filled scene (the loaders call it); messages are "FILE: JSON.PATH: what". */
int sim_scene_validate(const sim_scene *s, sim_status *st);
/* The resolved scene as pretty JSON that loads back to the same struct (mesh paths are as
   resolved, i.e. relative to the current directory). *out_text is malloc'ed; free() it.
   Returns SIM_OK or SIM_ERR_MEMORY. */
int sim_scene_to_json(const sim_scene *s, char **out_text);

#endif
