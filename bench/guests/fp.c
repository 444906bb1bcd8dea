/* Floating-point/SSE kernel: the n-body simulation of the five Jovian
 * planets (double precision, sqrtsd), then the bits of the final energy.
 * Built with SSE2 math on both ABIs.
 * argv: STEPS (default 400000). */
#include "bench_guest.h"

#define PI 3.141592653589793
#define SOLAR_MASS (4 * PI * PI)
#define DAYS 365.24

struct body {
    double x, y, z, vx, vy, vz, m;
};

static struct body bodies[5] = {
    { 0, 0, 0, 0, 0, 0, SOLAR_MASS },
    { 4.84143144246472090e+00, -1.16032004402742839e+00, -1.03622044471123109e-01,
      1.66007664274403694e-03 * DAYS, 7.69901118419740425e-03 * DAYS,
      -6.90460016972063023e-05 * DAYS, 9.54791938424326609e-04 * SOLAR_MASS },
    { 8.34336671824457987e+00, 4.12479856412430479e+00, -4.03523417114321381e-01,
      -2.76742510726862411e-03 * DAYS, 4.99852801234917238e-03 * DAYS,
      2.30417297573763929e-05 * DAYS, 2.85885980666130812e-04 * SOLAR_MASS },
    { 1.28943695621391310e+01, -1.51111514016986312e+01, -2.23307578892655734e-01,
      2.96460137564761618e-03 * DAYS, 2.37847173959480950e-03 * DAYS,
      -2.96589568540237556e-05 * DAYS, 4.36624404335156298e-05 * SOLAR_MASS },
    { 1.53796971148509165e+01, -2.59193146099879641e+01, 1.79258772950371181e-01,
      2.68067772490389322e-03 * DAYS, 1.62824170038242295e-03 * DAYS,
      -9.51592254519715870e-05 * DAYS, 5.15138902046611451e-05 * SOLAR_MASS },
};

static void advance(double dt)
{
    for (int i = 0; i < 5; i++) {
        struct body *a = &bodies[i];
        for (int j = i + 1; j < 5; j++) {
            struct body *b = &bodies[j];
            double dx = a->x - b->x, dy = a->y - b->y, dz = a->z - b->z;
            double d2 = dx * dx + dy * dy + dz * dz;
            double mag = dt / (d2 * __builtin_sqrt(d2));
            a->vx -= dx * b->m * mag;
            a->vy -= dy * b->m * mag;
            a->vz -= dz * b->m * mag;
            b->vx += dx * a->m * mag;
            b->vy += dy * a->m * mag;
            b->vz += dz * a->m * mag;
        }
    }
    for (int i = 0; i < 5; i++) {
        bodies[i].x += dt * bodies[i].vx;
        bodies[i].y += dt * bodies[i].vy;
        bodies[i].z += dt * bodies[i].vz;
    }
}

static double energy(void)
{
    double e = 0;
    for (int i = 0; i < 5; i++) {
        struct body *a = &bodies[i];
        e += 0.5 * a->m * (a->vx * a->vx + a->vy * a->vy + a->vz * a->vz);
        for (int j = i + 1; j < 5; j++) {
            struct body *b = &bodies[j];
            double dx = a->x - b->x, dy = a->y - b->y, dz = a->z - b->z;
            e -= a->m * b->m / __builtin_sqrt(dx * dx + dy * dy + dz * dz);
        }
    }
    return e;
}

int bench_main(int argc, char **argv)
{
    ulong steps = g_atoul(argc > 1 ? argv[1] : 0, 400000);
    double px = 0, py = 0, pz = 0;
    for (int i = 0; i < 5; i++) {
        px += bodies[i].vx * bodies[i].m;
        py += bodies[i].vy * bodies[i].m;
        pz += bodies[i].vz * bodies[i].m;
    }
    bodies[0].vx = -px / SOLAR_MASS;
    bodies[0].vy = -py / SOLAR_MASS;
    bodies[0].vz = -pz / SOLAR_MASS;
    for (ulong s = 0; s < steps; s++)
        advance(0.01);
    union { double d; u64 u; } e = { energy() };
    g_checksum(1, e.u);
    return 0;
}
