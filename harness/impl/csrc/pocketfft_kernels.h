/* The body of pocketfft.c, included once per precision: REAL (float or double), FMA (fmaf or fma) and
 * PF(name) (the name with its precision's suffix) and SCALAR (the scalar copy's mode: 0 float32, 2 float64, whose
 * twiddle differences but pass8's take the lane order) are defined by the includer. pocketfft.c's header says
 * what each function reproduces and its order of operations; "fused" below is GCC's contraction of a
 * product into the sum or difference that uses it (one rounding), as the aarch64 wheel's code runs it. */

typedef struct {
    REAL r, i;
} PF(cx);


/* a*b - c*d as GCC contracts it: in scalar code the first product fused (fnmsub), in the NEON-lane code
 * (vec) the second (fmls). */
#define DIFF(a, b, c, d, vec) ((vec) ? FMA(-(c), d, (a) * (b)) : FMA(a, b, -((c) * (d))))

/* pocketfft's special_mul: v times the twiddle w (forward: times conj(w)), the first product of each part
 * fused into its sum or difference: forward (v.r*w.r + v.i*w.i, v.i*w.r - v.r*w.i), backward
 * (v.r*w.r - v.i*w.i, v.r*w.i + v.i*w.r). */
static inline PF(cx) PF(twiddle)(PF(cx) v, PF(cx) w, int fwd, int vec) {
    PF(cx) o;
    if (fwd) {
        o.r = FMA(v.r, w.r, v.i * w.i);
        o.i = DIFF(v.i, w.r, v.r, w.i, vec);
    } else {
        o.r = DIFF(v.r, w.r, v.i, w.i, vec);
        o.i = FMA(v.r, w.i, v.i * w.r);
    }
    return o;
}

static inline PF(cx) PF(add)(PF(cx) a, PF(cx) b) { return (PF(cx)){a.r + b.r, a.i + b.i}; }
static inline PF(cx) PF(sub)(PF(cx) a, PF(cx) b) { return (PF(cx)){a.r - b.r, a.i - b.i}; }

/* pocketfft's ROTX90: times -i (forward) or +i (backward), exact. */
static inline PF(cx) PF(rot90)(PF(cx) a, int fwd) { return fwd ? (PF(cx)){a.i, -a.r} : (PF(cx)){-a.i, a.r}; }

/* a + h*s and a - h*s, h*s fused into each (the products of ROTX45 and ROTX135 have no other use). */
static inline PF(cx) PF(add_prod)(PF(cx) a, REAL h, PF(cx) s) { return (PF(cx)){FMA(h, s.r, a.r), FMA(h, s.i, a.i)}; }
static inline PF(cx) PF(sub_prod)(PF(cx) a, REAL h, PF(cx) s) { return (PF(cx)){FMA(-h, s.r, a.r), FMA(-h, s.i, a.i)}; }

#define CC(a, b, c) cc[(a) + ido * ((b) + cdim * (c))]
#define CH(a, b, c) ch[(a) + ido * ((b) + l1 * (c))]
#define WA(x, i) wa[(i) - 1 + (x) * (ido - 1)]

/* pass2: CH0 = CC0 + CC1, CH1 = (CC0 - CC1) times the twiddle (none for i = 0). */
static void PF(pass2)(size_t ido, size_t l1, const PF(cx) *cc, PF(cx) *ch, const PF(cx) *wa, int fwd, int vec) {
    const size_t cdim = 2;
    for (size_t k = 0; k < l1; ++k)
        for (size_t i = 0; i < ido; ++i) {
            CH(i, k, 0) = PF(add)(CC(i, 0, k), CC(i, 1, k));
            PF(cx) d = PF(sub)(CC(i, 0, k), CC(i, 1, k));
            CH(i, k, 1) = i == 0 ? d : PF(twiddle)(d, WA(0, i), fwd, vec);
        }
}

/* pass3: t1 = CC1 + CC2, t2 = CC1 - CC2, CH0 = CC0 + t1; ca = CC0 + t1*(-1/2) (fused), cb = (-t2.i*s, t2.r*s)
 * with s = -+sin(pi/3); CH1 = ca + cb, CH2 = ca - cb with cb's products fused into each, then the twiddles. */
static void PF(pass3)(size_t ido, size_t l1, const PF(cx) *cc, PF(cx) *ch, const PF(cx) *wa, int fwd, int vec) {
    const size_t cdim = 3;
    const REAL twr = (REAL)-0.5, twi = (fwd ? -1 : 1) * (REAL)0.8660254037844386467637231707529362;
    for (size_t k = 0; k < l1; ++k)
        for (size_t i = 0; i < ido; ++i) {
            PF(cx) t0 = CC(i, 0, k), t1 = PF(add)(CC(i, 1, k), CC(i, 2, k)), t2 = PF(sub)(CC(i, 1, k), CC(i, 2, k));
            CH(i, k, 0) = PF(add)(t0, t1);
            PF(cx) ca = {FMA(t1.r, twr, t0.r), FMA(t1.i, twr, t0.i)};
            PF(cx) u1 = {FMA(-t2.i, twi, ca.r), FMA(t2.r, twi, ca.i)};
            PF(cx) u2 = {FMA(t2.i, twi, ca.r), FMA(-t2.r, twi, ca.i)};
            CH(i, k, 1) = i == 0 ? u1 : PF(twiddle)(u1, WA(0, i), fwd, vec);
            CH(i, k, 2) = i == 0 ? u2 : PF(twiddle)(u2, WA(1, i), fwd, vec);
        }
}

/* pass4: t2 = CC0 + CC2, t1 = CC0 - CC2, t3 = CC1 + CC3, t4 = rot90(CC1 - CC3); CH0 = t2 + t3,
 * CH1 = t1 + t4, CH2 = t2 - t3, CH3 = t1 - t4, then the twiddles (no products for i = 0). */
static void PF(pass4)(size_t ido, size_t l1, const PF(cx) *cc, PF(cx) *ch, const PF(cx) *wa, int fwd, int vec) {
    const size_t cdim = 4;
    for (size_t k = 0; k < l1; ++k)
        for (size_t i = 0; i < ido; ++i) {
            PF(cx) t2 = PF(add)(CC(i, 0, k), CC(i, 2, k)), t1 = PF(sub)(CC(i, 0, k), CC(i, 2, k));
            PF(cx) t3 = PF(add)(CC(i, 1, k), CC(i, 3, k)), t4 = PF(rot90)(PF(sub)(CC(i, 1, k), CC(i, 3, k)), fwd);
            CH(i, k, 0) = PF(add)(t2, t3);
            PF(cx) c1 = PF(add)(t1, t4), c2 = PF(sub)(t2, t3), c3 = PF(sub)(t1, t4);
            CH(i, k, 1) = i == 0 ? c1 : PF(twiddle)(c1, WA(0, i), fwd, vec);
            CH(i, k, 2) = i == 0 ? c2 : PF(twiddle)(c2, WA(1, i), fwd, vec);
            CH(i, k, 3) = i == 0 ? c3 : PF(twiddle)(c3, WA(2, i), fwd, vec);
        }
}

/* pass5: t1 = CC1 + CC4, t4 = CC1 - CC4, t2 = CC2 + CC3, t3 = CC2 - CC3, CH0 = (CC0 + t1) + t2 per part;
 * for (u1, u2) = (1, 4) with (a, b, c, d) = (c1, c2, s1, s2) and (2, 3) with (c2, c1, s2, -s1) (c = cos,
 * s = -+sin of 2pi/5, 4pi/5): ca = fused(b*t2 + fused(a*t1 + t0)) per part, cb.i = c*t4.r + d*t3.r,
 * cb.r = -(c*t4.i + d*t3.i) (the first product fused); CH(u1) = ca + cb, CH(u2) = ca - cb, then twiddles. */
static void PF(pass5)(size_t ido, size_t l1, const PF(cx) *cc, PF(cx) *ch, const PF(cx) *wa, int fwd, int vec) {
    const size_t cdim = 5;
    const REAL s = fwd ? -1 : 1;
    const REAL c1 = (REAL)0.3090169943749474241022934171828191, s1 = s * (REAL)0.9510565162951535721164393333793821;
    const REAL c2 = (REAL)-0.8090169943749474241022934171828191, s2 = s * (REAL)0.5877852522924731291687059546390728;
    for (size_t k = 0; k < l1; ++k)
        for (size_t i = 0; i < ido; ++i) {
            PF(cx) t0 = CC(i, 0, k);
            PF(cx) t1 = PF(add)(CC(i, 1, k), CC(i, 4, k)), t4 = PF(sub)(CC(i, 1, k), CC(i, 4, k));
            PF(cx) t2 = PF(add)(CC(i, 2, k), CC(i, 3, k)), t3 = PF(sub)(CC(i, 2, k), CC(i, 3, k));
            CH(i, k, 0) = (PF(cx)){t0.r + t1.r + t2.r, t0.i + t1.i + t2.i};
            for (int part = 0; part < 2; ++part) {
                REAL a = part ? c2 : c1, b = part ? c1 : c2, c = part ? s2 : s1, d = part ? -s1 : s2;
                size_t u1 = part ? 2 : 1, u2 = part ? 3 : 4;
                PF(cx) ca = {FMA(b, t2.r, FMA(a, t1.r, t0.r)), FMA(b, t2.i, FMA(a, t1.i, t0.i))};
                PF(cx) cb = {-FMA(c, t4.i, d * t3.i), FMA(c, t4.r, d * t3.r)};
                if (vec != 1 && !fwd && part) /* scalar code, backward: the second product fused */
                    cb = (PF(cx)){-FMA(d, t3.i, c * t4.i), FMA(d, t3.r, c * t4.r)};
                PF(cx) x1 = PF(add)(ca, cb), x2 = PF(sub)(ca, cb);
                CH(i, k, u1) = i == 0 ? x1 : PF(twiddle)(x1, WA(u1 - 1, i), fwd, vec);
                CH(i, k, u2) = i == 0 ? x2 : PF(twiddle)(x2, WA(u2 - 1, i), fwd, vec);
            }
        }
}

/* ROTX45 and ROTX135's sums (the products by sqrt(1/2) are fused into their uses). */
static inline PF(cx) PF(sum45)(PF(cx) a, int fwd) { return fwd ? (PF(cx)){a.r + a.i, a.i - a.r} : (PF(cx)){a.r - a.i, a.i + a.r}; }
static inline PF(cx) PF(sum135)(PF(cx) a, int fwd) {
    return fwd ? (PF(cx)){a.i - a.r, -a.r - a.i} : (PF(cx)){-a.r - a.i, a.r - a.i};
}

/* pass8: a1 = CC1 + CC5, a5 = CC1 - CC5, a3 = CC3 + CC7, a7 = rot90(CC3 - CC7); a1, a3 = a1 + a3,
 * rot90(a1 - a3); a5, a7 = a5 + a7, a5 - a7, then s5 = sum45(a5), s7 = sum135(a7) (times sqrt(1/2) in
 * their uses); a0 = CC0 + CC4, a4 = CC0 - CC4, a2 = CC2 + CC6, a6 = rot90(CC2 - CC6); a0, a2 = a0 + a2, a0 - a2;
 * a4, a6 = a4 + a6, a4 - a6; CH0 = a0 + a1, CH4 = a0 - a1, CH2 = a2 + a3, CH6 = a2 - a3, CH1 = a4 + h*s5,
 * CH5 = a4 - h*s5, CH3 = a6 + h*s7, CH7 = a6 - h*s7 (h*s fused), then the twiddles (none for i = 0). */
static void PF(pass8)(size_t ido, size_t l1, const PF(cx) *cc, PF(cx) *ch, const PF(cx) *wa, int fwd, int vec) {
    const size_t cdim = 8;
    const REAL h = (REAL)0.707106781186547524400844362104849;
    for (size_t k = 0; k < l1; ++k)
        for (size_t i = 0; i < ido; ++i) {
            PF(cx) a1 = PF(add)(CC(i, 1, k), CC(i, 5, k)), a5 = PF(sub)(CC(i, 1, k), CC(i, 5, k));
            PF(cx) a3 = PF(add)(CC(i, 3, k), CC(i, 7, k)), a7 = PF(rot90)(PF(sub)(CC(i, 3, k), CC(i, 7, k)), fwd);
            PF(cx) b1 = PF(add)(a1, a3), b3 = PF(rot90)(PF(sub)(a1, a3), fwd);
            PF(cx) s5 = PF(sum45)(PF(add)(a5, a7), fwd), s7 = PF(sum135)(PF(sub)(a5, a7), fwd);
            PF(cx) a0 = PF(add)(CC(i, 0, k), CC(i, 4, k)), a4 = PF(sub)(CC(i, 0, k), CC(i, 4, k));
            PF(cx) a2 = PF(add)(CC(i, 2, k), CC(i, 6, k)), a6 = PF(rot90)(PF(sub)(CC(i, 2, k), CC(i, 6, k)), fwd);
            PF(cx) b0 = PF(add)(a0, a2), b2 = PF(sub)(a0, a2), b4 = PF(add)(a4, a6), b6 = PF(sub)(a4, a6);
            PF(cx) out[8] = {PF(add)(b0, b1), PF(add_prod)(b4, h, s5), PF(add)(b2, b3), PF(add_prod)(b6, h, s7),
                             PF(sub)(b0, b1), PF(sub_prod)(b4, h, s5), PF(sub)(b2, b3), PF(sub_prod)(b6, h, s7)};
            CH(i, k, 0) = out[0];
            for (size_t u = 1; u < 8; ++u) CH(i, k, u) = i == 0 ? out[u] : PF(twiddle)(out[u], WA(u - 1, i), fwd, vec == 1);
        }
}

#undef CC
#undef CH
#undef WA

/* A plan: cfftp's factors and twiddles for length n (factors 8, 4, 2, 3, 5 only: 0 factors if another). */
typedef struct {
    size_t n, nfct, fct[64];
    PF(cx) * tw[64];
    PF(cx) * mem;
} PF(plan);

static int PF(plan_make)(PF(plan) * p, size_t n, double ang) {
    size_t f[64], m = 0, len = n;
    while ((len & 7) == 0) f[m++] = 8, len >>= 3;
    while ((len & 3) == 0) f[m++] = 4, len >>= 2;
    if ((len & 1) == 0) {
        len >>= 1;
        f[m++] = 2;
        size_t t = f[0];
        f[0] = f[m - 1];
        f[m - 1] = t;
    }
    for (size_t d = 3; d * d <= len; d += 2)
        while (len % d == 0) f[m++] = d, len /= d;
    if (len > 1) f[m++] = len;
    for (size_t k = 0; k < m; ++k)
        if (f[k] > 8 || f[k] == 7 || f[k] == 6) return -1;
    p->n = n;
    p->nfct = m;
    size_t total = 0, l1 = 1;
    for (size_t k = 0; k < m; ++k) {
        total += (f[k] - 1) * (n / (l1 * f[k]) - 1);
        l1 *= f[k];
    }
    p->mem = malloc((total + 1) * sizeof(PF(cx)));
    if (!p->mem) return -2;
    pf_sincos sc;
    if (pf_sincos_make(&sc, n, ang)) {
        free(p->mem);
        return -2;
    }
    size_t ofs = 0;
    l1 = 1;
    for (size_t k = 0; k < m; ++k) {
        size_t ip = f[k], ido = n / (l1 * ip);
        p->fct[k] = ip;
        p->tw[k] = p->mem + ofs;
        ofs += (ip - 1) * (ido - 1);
        for (size_t j = 1; j < ip; ++j)
            for (size_t i = 1; i < ido; ++i) {
                double re, im;
                pf_sincos_at(&sc, j * l1 * i, &re, &im);
                p->tw[k][(j - 1) * (ido - 1) + i - 1] = (PF(cx)){(REAL)re, (REAL)im};
            }
        l1 *= ip;
    }
    pf_sincos_free(&sc);
    return 0;
}

/* cfftp's pass_all over one row c (n complex values), ch its scratch: the passes in the plan's order,
 * then each value times fct (when fct is not 1). */
static void PF(pass_all)(const PF(plan) * p, PF(cx) * c, PF(cx) * ch, int fwd, REAL fct, int vec) {
    size_t n = p->n, l1 = 1;
    PF(cx) *p1 = c, *p2 = ch;
    for (size_t k = 0; k < p->nfct; ++k) {
        size_t ip = p->fct[k], ido = n / (l1 * ip);
        if (ip == 4) PF(pass4)(ido, l1, p1, p2, p->tw[k], fwd, vec);
        else if (ip == 8) PF(pass8)(ido, l1, p1, p2, p->tw[k], fwd, vec);
        else if (ip == 2) PF(pass2)(ido, l1, p1, p2, p->tw[k], fwd, vec);
        else if (ip == 3) PF(pass3)(ido, l1, p1, p2, p->tw[k], fwd, vec);
        else PF(pass5)(ido, l1, p1, p2, p->tw[k], fwd, vec);
        PF(cx) *t = p1;
        p1 = p2;
        p2 = t;
        l1 *= ip;
    }
    for (size_t i = 0; i < n; ++i) {
        PF(cx) v = p1[i];
        c[i] = fct != 1 ? (PF(cx)){v.r * fct, v.i * fct} : v;
    }
}

/* rows contiguous rows of n complex values (interleaved re, im), transformed in place. 0, or -1 where n has
 * a factor pocketfft runs another pass for (7, 11, the generic pass, Bluestein). */
int PF(pocketfft_c2c)(int64_t n, int64_t rows, REAL *data, int fwd, REAL fct, int64_t vec_rows, double ang) {
    if (n < 1) return -1;
    if (n == 1) {
        for (int64_t r = 0; r < 2 * rows; ++r) data[r] *= fct;
        return 0;
    }
    PF(plan) p;
    int rc = PF(plan_make)(&p, (size_t)n, ang);
    if (rc) return rc;
    PF(cx) *ch = malloc((size_t)n * sizeof(PF(cx)));
    if (!ch) {
        free(p.mem);
        return -2;
    }
    for (int64_t r = 0; r < rows; ++r) PF(pass_all)(&p, (PF(cx) *)(data + 2 * n * r), ch, fwd, fct, r < vec_rows ? 1 : SCALAR);
    free(ch);
    free(p.mem);
    return 0;
}

/* The real plan rfftp: radf2, 3, 4, 5 (forward, the halfcomplex result r0, r1, i1, r2, i2, ...) and radb2, 3, 4,
 * 5 (backward), their products fused as GCC contracts them (a product whose every use is a sum or a
 * difference is fused into each; of two products summed, the first). MULPM(c, d, e, f) = (c*e + d*f,
 * c*f - d*e), the first product of each fused. */
#define MULPM(a, b, c, d, e, f) (a = FMA(c, e, (d) * (f)), b = DIFF(c, f, d, e, vec))
#define WA(x, i) wa[(i) + (x) * (ido - 1)]

#define CC(a, b, c) cc[(a) + ido * ((b) + l1 * (c))]
#define CH(a, b, c) ch[(a) + ido * ((b) + cdim * (c))]

static void PF(radf2)(size_t ido, size_t l1, const REAL *cc, REAL *ch, const REAL *wa, int vec) {
    const size_t cdim = 2;
    for (size_t k = 0; k < l1; k++) {
        CH(0, 0, k) = CC(0, k, 0) + CC(0, k, 1);
        CH(ido - 1, 1, k) = CC(0, k, 0) - CC(0, k, 1);
    }
    if ((ido & 1) == 0)
        for (size_t k = 0; k < l1; k++) {
            CH(0, 1, k) = -CC(ido - 1, k, 1);
            CH(ido - 1, 0, k) = CC(ido - 1, k, 0);
        }
    if (ido <= 2) return;
    for (size_t k = 0; k < l1; k++)
        for (size_t i = 2; i < ido; i += 2) {
            size_t ic = ido - i;
            REAL tr2, ti2;
            MULPM(tr2, ti2, WA(0, i - 2), WA(0, i - 1), CC(i - 1, k, 1), CC(i, k, 1));
            CH(i - 1, 0, k) = CC(i - 1, k, 0) + tr2;
            CH(ic - 1, 1, k) = CC(i - 1, k, 0) - tr2;
            CH(i, 0, k) = ti2 + CC(i, k, 0);
            CH(ic, 1, k) = ti2 - CC(i, k, 0);
        }
}

static void PF(radf3)(size_t ido, size_t l1, const REAL *cc, REAL *ch, const REAL *wa, int vec) {
    const size_t cdim = 3;
    const REAL taur = (REAL)-0.5, taui = (REAL)0.8660254037844386467637231707529362;
    for (size_t k = 0; k < l1; k++) {
        REAL cr2 = CC(0, k, 1) + CC(0, k, 2);
        CH(0, 0, k) = CC(0, k, 0) + cr2;
        CH(0, 2, k) = taui * (CC(0, k, 2) - CC(0, k, 1));
        CH(ido - 1, 1, k) = FMA(taur, cr2, CC(0, k, 0));
    }
    if (ido == 1) return;
    for (size_t k = 0; k < l1; k++)
        for (size_t i = 2; i < ido; i += 2) {
            size_t ic = ido - i;
            REAL dr2, di2, dr3, di3;
            MULPM(dr2, di2, WA(0, i - 2), WA(0, i - 1), CC(i - 1, k, 1), CC(i, k, 1));
            MULPM(dr3, di3, WA(1, i - 2), WA(1, i - 1), CC(i - 1, k, 2), CC(i, k, 2));
            REAL s2 = dr2 + dr3, t2 = dr3 - dr2, s3 = di2 + di3, t3 = di2 - di3; /* rearranged */
            CH(i - 1, 0, k) = CC(i - 1, k, 0) + s2;
            CH(i, 0, k) = CC(i, k, 0) + s3;
            REAL tr2 = FMA(taur, s2, CC(i - 1, k, 0)), ti2 = FMA(taur, s3, CC(i, k, 0));
            CH(i - 1, 2, k) = FMA(taui, t3, tr2);
            CH(ic - 1, 1, k) = FMA(-taui, t3, tr2);
            CH(i, 2, k) = FMA(taui, t2, ti2);
            CH(ic, 1, k) = FMA(taui, t2, -ti2);
        }
}

static void PF(radf4)(size_t ido, size_t l1, const REAL *cc, REAL *ch, const REAL *wa, int vec) {
    const size_t cdim = 4;
    const REAL h = (REAL)0.707106781186547524400844362104849;
    for (size_t k = 0; k < l1; k++) {
        REAL tr1 = CC(0, k, 3) + CC(0, k, 1), tr2 = CC(0, k, 0) + CC(0, k, 2);
        CH(0, 2, k) = CC(0, k, 3) - CC(0, k, 1);
        CH(ido - 1, 1, k) = CC(0, k, 0) - CC(0, k, 2);
        CH(0, 0, k) = tr2 + tr1;
        CH(ido - 1, 3, k) = tr2 - tr1;
    }
    if ((ido & 1) == 0)
        for (size_t k = 0; k < l1; k++) {
            REAL s = CC(ido - 1, k, 1) + CC(ido - 1, k, 3), d = CC(ido - 1, k, 1) - CC(ido - 1, k, 3);
            CH(ido - 1, 0, k) = FMA(h, d, CC(ido - 1, k, 0));
            CH(ido - 1, 2, k) = FMA(-h, d, CC(ido - 1, k, 0));
            CH(0, 3, k) = FMA(-h, s, CC(ido - 1, k, 2));
            CH(0, 1, k) = FMA(-h, s, -CC(ido - 1, k, 2));
        }
    if (ido <= 2) return;
    for (size_t k = 0; k < l1; k++)
        for (size_t i = 2; i < ido; i += 2) {
            size_t ic = ido - i;
            REAL cr2, ci2, cr3, ci3, cr4, ci4;
            MULPM(cr2, ci2, WA(0, i - 2), WA(0, i - 1), CC(i - 1, k, 1), CC(i, k, 1));
            MULPM(cr3, ci3, WA(1, i - 2), WA(1, i - 1), CC(i - 1, k, 2), CC(i, k, 2));
            MULPM(cr4, ci4, WA(2, i - 2), WA(2, i - 1), CC(i - 1, k, 3), CC(i, k, 3));
            REAL tr1 = cr4 + cr2, tr4 = cr4 - cr2, ti1 = ci2 + ci4, ti4 = ci2 - ci4;
            REAL tr2 = CC(i - 1, k, 0) + cr3, tr3 = CC(i - 1, k, 0) - cr3;
            REAL ti2 = CC(i, k, 0) + ci3, ti3 = CC(i, k, 0) - ci3;
            CH(i - 1, 0, k) = tr2 + tr1;
            CH(ic - 1, 3, k) = tr2 - tr1;
            CH(i, 0, k) = ti1 + ti2;
            CH(ic, 3, k) = ti1 - ti2;
            CH(i - 1, 2, k) = tr3 + ti4;
            CH(ic - 1, 1, k) = tr3 - ti4;
            CH(i, 2, k) = tr4 + ti3;
            CH(ic, 1, k) = tr4 - ti3;
        }
}

/* radf5: cr2, ci5 = CC4 + CC1, CC4 - CC1; cr3, ci4 = CC3 + CC2, CC3 - CC2 (i = 0), or the same of the
 * twiddled values (MULPM: dr, di); CH0 = (CC0 + cr2) + cr3; tr2 = CC0 + tr11*cr2 + tr12*cr3, tr3 = CC0 +
 * tr12*cr2 + tr11*cr3 (both products fused, in turn); i = 0: ti11*ci5 + ti12*ci4 (the first fused) and
 * ti12*ci5 - ti11*ci4; i > 0: tr5, tr4 = cr5*ti11 + cr4*ti12, cr5*ti12 - cr4*ti11 and ti5, ti4 the same of ci5,
 * ci4, then the sums and differences into the halfcomplex slots. The differences by the constants fuse the
 * first product (GCC multiplies by -ti11) in scalar and NEON-lane code alike, but for i = 0 in the scalar
 * copy's loop over k that GCC vectorised (4 k at a time, where l1 > 16; the last l1 % 4 one by one): the
 * second (fmls). */
static void PF(radf5)(size_t ido, size_t l1, const REAL *cc, REAL *ch, const REAL *wa, int vec) {
    const size_t cdim = 5;
    const REAL tr11 = (REAL)0.3090169943749474241022934171828191, ti11 = (REAL)0.9510565162951535721164393333793821;
    const REAL tr12 = (REAL)-0.8090169943749474241022934171828191, ti12 = (REAL)0.5877852522924731291687059546390728;
    for (size_t k = 0; k < l1; k++) {
        REAL cr2 = CC(0, k, 4) + CC(0, k, 1), ci5 = CC(0, k, 4) - CC(0, k, 1);
        REAL cr3 = CC(0, k, 3) + CC(0, k, 2), ci4 = CC(0, k, 3) - CC(0, k, 2);
        CH(0, 0, k) = CC(0, k, 0) + cr2 + cr3;
        CH(ido - 1, 1, k) = FMA(tr12, cr3, FMA(tr11, cr2, CC(0, k, 0)));
        CH(ido - 1, 3, k) = FMA(tr11, cr3, FMA(tr12, cr2, CC(0, k, 0)));
        CH(0, 2, k) = FMA(ti11, ci5, ti12 * ci4);
        CH(0, 4, k) = DIFF(ti12, ci5, ti11, ci4, vec != 1 && l1 > 16 && k < (l1 & ~(size_t)3));
    }
    if (ido == 1) return;
    for (size_t k = 0; k < l1; ++k)
        for (size_t i = 2; i < ido; i += 2) {
            size_t ic = ido - i;
            REAL dr2, di2, dr3, di3, dr4, di4, dr5, di5, tr4, tr5, ti4, ti5;
            MULPM(dr2, di2, WA(0, i - 2), WA(0, i - 1), CC(i - 1, k, 1), CC(i, k, 1));
            MULPM(dr3, di3, WA(1, i - 2), WA(1, i - 1), CC(i - 1, k, 2), CC(i, k, 2));
            MULPM(dr4, di4, WA(2, i - 2), WA(2, i - 1), CC(i - 1, k, 3), CC(i, k, 3));
            MULPM(dr5, di5, WA(3, i - 2), WA(3, i - 1), CC(i - 1, k, 4), CC(i, k, 4));
            REAL cr2 = dr5 + dr2, ci5 = dr5 - dr2, ci2 = di2 + di5, cr5 = di2 - di5;
            REAL cr3 = dr4 + dr3, ci4 = dr4 - dr3, ci3 = di3 + di4, cr4 = di3 - di4;
            CH(i - 1, 0, k) = CC(i - 1, k, 0) + cr2 + cr3;
            CH(i, 0, k) = CC(i, k, 0) + ci2 + ci3;
            REAL tr2 = FMA(tr12, cr3, FMA(tr11, cr2, CC(i - 1, k, 0)));
            REAL ti2 = FMA(tr12, ci3, FMA(tr11, ci2, CC(i, k, 0)));
            REAL tr3 = FMA(tr11, cr3, FMA(tr12, cr2, CC(i - 1, k, 0)));
            REAL ti3 = FMA(tr11, ci3, FMA(tr12, ci2, CC(i, k, 0)));
            tr5 = FMA(cr5, ti11, cr4 * ti12), tr4 = DIFF(cr5, ti12, cr4, ti11, 0);
            ti5 = FMA(ci5, ti11, ci4 * ti12), ti4 = DIFF(ci5, ti12, ci4, ti11, 0);
            CH(i - 1, 2, k) = tr2 + tr5;
            CH(ic - 1, 1, k) = tr2 - tr5;
            CH(i, 2, k) = ti5 + ti2;
            CH(ic, 1, k) = ti5 - ti2;
            CH(i - 1, 4, k) = tr3 + tr4;
            CH(ic - 1, 3, k) = tr3 - tr4;
            CH(i, 4, k) = ti4 + ti3;
            CH(ic, 3, k) = ti4 - ti3;
        }
}

#undef CC
#undef CH
#define CC(a, b, c) cc[(a) + ido * ((b) + cdim * (c))]
#define CH(a, b, c) ch[(a) + ido * ((b) + l1 * (c))]

static void PF(radb2)(size_t ido, size_t l1, const REAL *cc, REAL *ch, const REAL *wa, int vec) {
    const size_t cdim = 2;
    for (size_t k = 0; k < l1; k++) {
        CH(0, k, 0) = CC(0, 0, k) + CC(ido - 1, 1, k);
        CH(0, k, 1) = CC(0, 0, k) - CC(ido - 1, 1, k);
    }
    if ((ido & 1) == 0)
        for (size_t k = 0; k < l1; k++) {
            CH(ido - 1, k, 0) = 2 * CC(ido - 1, 0, k);
            CH(ido - 1, k, 1) = -2 * CC(0, 1, k);
        }
    if (ido <= 2) return;
    for (size_t k = 0; k < l1; ++k)
        for (size_t i = 2; i < ido; i += 2) {
            size_t ic = ido - i;
            CH(i - 1, k, 0) = CC(i - 1, 0, k) + CC(ic - 1, 1, k);
            REAL tr2 = CC(i - 1, 0, k) - CC(ic - 1, 1, k);
            REAL ti2 = CC(i, 0, k) + CC(ic, 1, k);
            CH(i, k, 0) = CC(i, 0, k) - CC(ic, 1, k);
            MULPM(CH(i, k, 1), CH(i - 1, k, 1), WA(0, i - 2), WA(0, i - 1), ti2, tr2);
        }
}

static void PF(radb3)(size_t ido, size_t l1, const REAL *cc, REAL *ch, const REAL *wa, int vec) {
    const size_t cdim = 3;
    const REAL taur = (REAL)-0.5, taui = (REAL)0.8660254037844386467637231707529362;
    for (size_t k = 0; k < l1; k++) {
        REAL tr2 = 2 * CC(ido - 1, 1, k);
        REAL cr2 = FMA(taur, tr2, CC(0, 0, k));
        CH(0, k, 0) = CC(0, 0, k) + tr2;
        CH(0, k, 2) = FMA(2 * taui, CC(0, 2, k), cr2);
        CH(0, k, 1) = FMA(-2 * taui, CC(0, 2, k), cr2);
    }
    if (ido == 1) return;
    for (size_t k = 0; k < l1; k++)
        for (size_t i = 2, ic = ido - 2; i < ido; i += 2, ic -= 2) {
            REAL tr2 = CC(i - 1, 2, k) + CC(ic - 1, 1, k), ti2 = CC(i, 2, k) - CC(ic, 1, k);
            REAL cr2 = FMA(taur, tr2, CC(i - 1, 0, k)), ci2 = FMA(taur, ti2, CC(i, 0, k));
            CH(i - 1, k, 0) = CC(i - 1, 0, k) + tr2;
            CH(i, k, 0) = CC(i, 0, k) + ti2;
            REAL d3 = CC(i - 1, 2, k) - CC(ic - 1, 1, k), s3 = CC(i, 2, k) + CC(ic, 1, k);
            REAL dr3 = FMA(taui, s3, cr2), dr2 = FMA(-taui, s3, cr2);
            REAL di2 = FMA(taui, d3, ci2), di3 = FMA(-taui, d3, ci2);
            MULPM(CH(i, k, 1), CH(i - 1, k, 1), WA(0, i - 2), WA(0, i - 1), di2, dr2);
            MULPM(CH(i, k, 2), CH(i - 1, k, 2), WA(1, i - 2), WA(1, i - 1), di3, dr3);
        }
}

static void PF(radb4)(size_t ido, size_t l1, const REAL *cc, REAL *ch, const REAL *wa, int vec) {
    const size_t cdim = 4;
    const REAL sqrt2 = (REAL)1.414213562373095048801688724209698;
    for (size_t k = 0; k < l1; k++) {
        REAL tr2 = CC(0, 0, k) + CC(ido - 1, 3, k), tr1 = CC(0, 0, k) - CC(ido - 1, 3, k);
        REAL x3 = CC(ido - 1, 1, k), x4 = CC(0, 2, k);
        CH(0, k, 0) = FMA(2, x3, tr2);
        CH(0, k, 2) = FMA(-2, x3, tr2);
        CH(0, k, 3) = FMA(2, x4, tr1);
        CH(0, k, 1) = FMA(-2, x4, tr1);
    }
    if ((ido & 1) == 0)
        for (size_t k = 0; k < l1; k++) {
            REAL ti1 = CC(0, 3, k) + CC(0, 1, k), ti2 = CC(0, 3, k) - CC(0, 1, k);
            REAL tr2 = CC(ido - 1, 0, k) + CC(ido - 1, 2, k), tr1 = CC(ido - 1, 0, k) - CC(ido - 1, 2, k);
            CH(ido - 1, k, 0) = tr2 + tr2;
            CH(ido - 1, k, 1) = sqrt2 * (tr1 - ti1);
            CH(ido - 1, k, 2) = ti2 + ti2;
            CH(ido - 1, k, 3) = -sqrt2 * (tr1 + ti1);
        }
    if (ido <= 2) return;
    for (size_t k = 0; k < l1; ++k)
        for (size_t i = 2; i < ido; i += 2) {
            size_t ic = ido - i;
            REAL tr2 = CC(i - 1, 0, k) + CC(ic - 1, 3, k), tr1 = CC(i - 1, 0, k) - CC(ic - 1, 3, k);
            REAL ti1 = CC(i, 0, k) + CC(ic, 3, k), ti2 = CC(i, 0, k) - CC(ic, 3, k);
            REAL tr4 = CC(i, 2, k) + CC(ic, 1, k), ti3 = CC(i, 2, k) - CC(ic, 1, k);
            REAL tr3 = CC(i - 1, 2, k) + CC(ic - 1, 1, k), ti4 = CC(i - 1, 2, k) - CC(ic - 1, 1, k);
            CH(i - 1, k, 0) = tr2 + tr3;
            REAL cr3 = tr2 - tr3;
            CH(i, k, 0) = ti2 + ti3;
            REAL ci3 = ti2 - ti3;
            REAL cr4 = tr1 + tr4, cr2 = tr1 - tr4, ci2 = ti1 + ti4, ci4 = ti1 - ti4;
            MULPM(CH(i, k, 1), CH(i - 1, k, 1), WA(0, i - 2), WA(0, i - 1), ci2, cr2);
            MULPM(CH(i, k, 2), CH(i - 1, k, 2), WA(1, i - 2), WA(1, i - 1), ci3, cr3);
            MULPM(CH(i, k, 3), CH(i - 1, k, 3), WA(2, i - 2), WA(2, i - 1), ci4, cr4);
        }
}

/* radb5: ti5, ti4, tr2, tr3 = twice CC(0, 2), CC(0, 4), CC(ido-1, 1), CC(ido-1, 3) (i = 0), or the sums and
 * differences of the mirrored slots (i > 0); CH0 = (CC0 + tr2) + tr3; cr2 = CC0 + tr11*tr2 + tr12*tr3, cr3 =
 * CC0 + tr12*tr2 + tr11*tr3 (both products fused, in turn); ci5, ci4 = ti5*ti11 + ti4*ti12, ti5*ti12 - ti4*ti11
 * (and cr5, cr4 of tr5, tr4) as MULPM: the difference's second product fused in the NEON-lane code and, for
 * i = 0, in the scalar copy's loop over k that GCC vectorised (4 k at a time, where l1 > 8; the last l1 % 4 one
 * by one); the sums and differences, then (i > 0) MULPM by the twiddles. The scalar copy's inner loop over
 * i (ido over 9) is refused by pocketfft.py. */
static void PF(radb5)(size_t ido, size_t l1, const REAL *cc, REAL *ch, const REAL *wa, int vec) {
    const size_t cdim = 5;
    const REAL tr11 = (REAL)0.3090169943749474241022934171828191, ti11 = (REAL)0.9510565162951535721164393333793821;
    const REAL tr12 = (REAL)-0.8090169943749474241022934171828191, ti12 = (REAL)0.5877852522924731291687059546390728;
    for (size_t k = 0; k < l1; k++) {
        REAL ti5 = CC(0, 2, k) + CC(0, 2, k), ti4 = CC(0, 4, k) + CC(0, 4, k);
        REAL tr2 = CC(ido - 1, 1, k) + CC(ido - 1, 1, k), tr3 = CC(ido - 1, 3, k) + CC(ido - 1, 3, k);
        CH(0, k, 0) = CC(0, 0, k) + tr2 + tr3;
        REAL cr2 = FMA(tr12, tr3, FMA(tr11, tr2, CC(0, 0, k))), cr3 = FMA(tr11, tr3, FMA(tr12, tr2, CC(0, 0, k)));
        REAL ci5 = FMA(ti5, ti11, ti4 * ti12);
        REAL ci4 = DIFF(ti5, ti12, ti4, ti11, vec == 1 || (l1 > 8 && k < (l1 & ~(size_t)3)));
        CH(0, k, 4) = cr2 + ci5;
        CH(0, k, 1) = cr2 - ci5;
        CH(0, k, 3) = cr3 + ci4;
        CH(0, k, 2) = cr3 - ci4;
    }
    if (ido == 1) return;
    for (size_t k = 0; k < l1; ++k)
        for (size_t i = 2; i < ido; i += 2) {
            size_t ic = ido - i;
            REAL tr2 = CC(i - 1, 2, k) + CC(ic - 1, 1, k), tr5 = CC(i - 1, 2, k) - CC(ic - 1, 1, k);
            REAL ti5 = CC(i, 2, k) + CC(ic, 1, k), ti2 = CC(i, 2, k) - CC(ic, 1, k);
            REAL tr3 = CC(i - 1, 4, k) + CC(ic - 1, 3, k), tr4 = CC(i - 1, 4, k) - CC(ic - 1, 3, k);
            REAL ti4 = CC(i, 4, k) + CC(ic, 3, k), ti3 = CC(i, 4, k) - CC(ic, 3, k);
            CH(i - 1, k, 0) = CC(i - 1, 0, k) + tr2 + tr3;
            CH(i, k, 0) = CC(i, 0, k) + ti2 + ti3;
            REAL cr2 = FMA(tr12, tr3, FMA(tr11, tr2, CC(i - 1, 0, k)));
            REAL ci2 = FMA(tr12, ti3, FMA(tr11, ti2, CC(i, 0, k)));
            REAL cr3 = FMA(tr11, tr3, FMA(tr12, tr2, CC(i - 1, 0, k)));
            REAL ci3 = FMA(tr11, ti3, FMA(tr12, ti2, CC(i, 0, k)));
            REAL cr5, cr4, ci5, ci4;
            MULPM(cr5, cr4, tr5, tr4, ti11, ti12);
            MULPM(ci5, ci4, ti5, ti4, ti11, ti12);
            REAL dr4 = cr3 + ci4, dr3 = cr3 - ci4, di3 = ci3 + cr4, di4 = ci3 - cr4;
            REAL dr5 = cr2 + ci5, dr2 = cr2 - ci5, di2 = ci2 + cr5, di5 = ci2 - cr5;
            MULPM(CH(i, k, 1), CH(i - 1, k, 1), WA(0, i - 2), WA(0, i - 1), di2, dr2);
            MULPM(CH(i, k, 2), CH(i - 1, k, 2), WA(1, i - 2), WA(1, i - 1), di3, dr3);
            MULPM(CH(i, k, 3), CH(i - 1, k, 3), WA(2, i - 2), WA(2, i - 1), di4, dr4);
            MULPM(CH(i, k, 4), CH(i - 1, k, 4), WA(3, i - 2), WA(3, i - 1), di5, dr5);
        }
}

#undef CC
#undef CH
#undef WA
#undef MULPM

/* rfftp's plan: factors 4 while n % 4 == 0, one 2 (to the front), odd divisors ascending; factor k's
 * twiddles (all but the last factor's): (j, i) -> the sincos table's entry j * l1 * i, its real and
 * imaginary parts (each rounded to the precision) side by side. -1 where a factor is other than 2 to 5. */
typedef struct {
    size_t n, nfct, fct[64];
    REAL *tw[64];
    REAL *mem;
} PF(rplan);

static int PF(rplan_make)(PF(rplan) * p, size_t n, double ang) {
    size_t f[64], m = 0, len = n;
    while (len % 4 == 0) f[m++] = 4, len >>= 2;
    if (len % 2 == 0) {
        len >>= 1;
        f[m++] = 2;
        size_t t = f[0];
        f[0] = f[m - 1];
        f[m - 1] = t;
    }
    for (size_t d = 3; d * d <= len; d += 2)
        while (len % d == 0) f[m++] = d, len /= d;
    if (len > 1) f[m++] = len;
    for (size_t k = 0; k < m; ++k)
        if (f[k] > 5) return -1; /* the generic passes radfg, radbg: not modelled */
    p->n = n, p->nfct = m;
    size_t total = 0, l1 = 1;
    for (size_t k = 0; k < m; ++k) {
        total += (f[k] - 1) * (n / (l1 * f[k]) - 1);
        l1 *= f[k];
    }
    p->mem = malloc((total + 1) * sizeof(REAL));
    if (!p->mem) return -2;
    pf_sincos sc;
    if (pf_sincos_make(&sc, n, ang)) {
        free(p->mem);
        return -2;
    }
    size_t ofs = 0;
    l1 = 1;
    for (size_t k = 0; k < m; ++k) {
        size_t ip = f[k], ido = n / (l1 * ip);
        p->fct[k] = ip;
        p->tw[k] = p->mem + ofs;
        if (k + 1 < m) {
            ofs += (ip - 1) * (ido - 1);
            for (size_t j = 1; j < ip; ++j)
                for (size_t i = 1; i <= (ido - 1) / 2; ++i) {
                    double re, im;
                    pf_sincos_at(&sc, j * l1 * i, &re, &im);
                    p->tw[k][(j - 1) * (ido - 1) + 2 * i - 2] = (REAL)re;
                    p->tw[k][(j - 1) * (ido - 1) + 2 * i - 1] = (REAL)im;
                }
        }
        l1 *= ip;
    }
    pf_sincos_free(&sc);
    return 0;
}

/* rfftp::exec over one row c (n reals), ch its scratch: forward, the factors last to first (radf); backward,
 * first to last (radb); then copy_and_norm (fct * value where fct != 1). */
static void PF(rexec)(const PF(rplan) * p, REAL *c, REAL *ch, int r2hc, REAL fct, int vec) {
    size_t n = p->n, nf = p->nfct;
    REAL *p1 = c, *p2 = ch;
    if (r2hc) {
        for (size_t k1 = 0, l1 = n; k1 < nf; ++k1) {
            size_t k = nf - k1 - 1, ip = p->fct[k], ido = n / l1;
            l1 /= ip;
            if (ip == 4) PF(radf4)(ido, l1, p1, p2, p->tw[k], vec);
            else if (ip == 2) PF(radf2)(ido, l1, p1, p2, p->tw[k], vec);
            else if (ip == 3) PF(radf3)(ido, l1, p1, p2, p->tw[k], vec);
            else PF(radf5)(ido, l1, p1, p2, p->tw[k], vec);
            REAL *t = p1;
            p1 = p2, p2 = t;
        }
    } else {
        for (size_t k = 0, l1 = 1; k < nf; k++) {
            size_t ip = p->fct[k], ido = n / (ip * l1);
            if (ip == 4) PF(radb4)(ido, l1, p1, p2, p->tw[k], vec);
            else if (ip == 2) PF(radb2)(ido, l1, p1, p2, p->tw[k], vec);
            else if (ip == 3) PF(radb3)(ido, l1, p1, p2, p->tw[k], vec);
            else PF(radb5)(ido, l1, p1, p2, p->tw[k], vec);
            REAL *t = p1;
            p1 = p2, p2 = t;
            l1 *= ip;
        }
    }
    for (size_t i = 0; i < n; ++i) c[i] = fct != 1 ? fct * p1[i] : p1[i];
}

/* r2c (forward) and c2r (backward) of rows contiguous rows: r2c reads rows x n reals and writes rows x
 * (n/2 + 1) complex values (bin 0's and, n even, bin n/2's imaginary parts +0); c2r reads rows x (n/2 + 1)
 * complex values (the imaginary parts of bin 0 and, n even, of bin n/2 unread) and writes rows x n reals.
 * 0, or -1 where n has a factor other than 2, 3 and 5. */
int PF(pocketfft_real)(int64_t n, int64_t rows, const REAL *in, REAL *out, int r2c, REAL fct, int64_t vec_rows,
                       double ang) {
    if (n < 1) return -1;
    size_t bins = (size_t)n / 2 + 1;
    REAL *t = malloc(2 * (size_t)n * sizeof(REAL));
    if (!t) return -2;
    PF(rplan) p = {0};
    if (n > 1) {
        int rc = PF(rplan_make)(&p, (size_t)n, ang);
        if (rc) {
            free(t);
            return rc;
        }
    }
    for (int64_t r = 0; r < rows; ++r) {
        if (r2c) {
            memcpy(t, in + (size_t)r * n, (size_t)n * sizeof(REAL));
            if (n > 1) PF(rexec)(&p, t, t + n, 1, fct, r < vec_rows ? 1 : SCALAR);
            else t[0] *= fct;
            REAL *o = out + 2 * bins * (size_t)r;
            o[0] = t[0], o[1] = 0;
            size_t i = 1, ii = 1;
            for (; i + 1 < (size_t)n; i += 2, ++ii) o[2 * ii] = t[i], o[2 * ii + 1] = t[i + 1];
            if (i < (size_t)n) o[2 * ii] = t[i], o[2 * ii + 1] = 0;
        } else {
            const REAL *x = in + 2 * bins * (size_t)r;
            t[0] = x[0];
            size_t i = 1, ii = 1;
            for (; i + 1 < (size_t)n; i += 2, ++ii) t[i] = x[2 * ii], t[i + 1] = x[2 * ii + 1];
            if (i < (size_t)n) t[i] = x[2 * ii];
            if (n > 1) PF(rexec)(&p, t, t + n, 0, fct, r < vec_rows ? 1 : SCALAR);
            else t[0] *= fct;
            memcpy(out + (size_t)r * n, t, (size_t)n * sizeof(REAL));
        }
    }
    free(p.mem);
    free(t);
    return 0;
}
