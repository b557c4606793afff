# Recall-only experiment (no timing): how deep must a sign-bit first pass keep candidates to hold
# the neighbours a 2-bit first pass keeps? Rows and queries unit length (cosine), a random
# orthogonal rotation (the index uses its own; any random rotation has the same statistics),
# 2-bit Lloyd-Max levels for N(0, 1/d) coordinates, sign = the top bit of those codes.
# Candidate sets per query: the exact top-N by cosine (a hard proxy of the probed lists: every
# candidate close) and the top-N mixed with random rows (an easier one).
import sys, numpy as np
base_f, q_f, gt_f = sys.argv[1:4]
nq = int(sys.argv[4]) if len(sys.argv) > 4 else 200
def rd(f, dt):
    h = np.fromfile(f, dtype=np.int32, count=2); return np.fromfile(f, dtype=dt, offset=8).reshape(h[0], h[1])
X = rd(base_f, np.float32); Q = rd(q_f, np.float32)[:nq]; GT = rd(gt_f, np.int32)[:nq, :10]
X /= np.linalg.norm(X, axis=1, keepdims=True); Q /= np.linalg.norm(Q, axis=1, keepdims=True)
d = X.shape[1]
rng = np.random.default_rng(7)
R, _ = np.linalg.qr(rng.standard_normal((d, d)))
R = R.astype(np.float32)
Xr = X @ R; Qr = Q @ R
s = 1 / np.sqrt(d); t = 0.9816 * s; lo, hi = 0.4528 * s, 1.510 * s   # Lloyd-Max 2-bit for N(0, s^2)
def two_bit(v): a = np.abs(v); return np.sign(v) * np.where(a > t, hi, lo)
for N in (20000, 60000):
    res = {}
    for qi in range(nq):
        exact = Xr @ Qr[qi]
        order = np.argpartition(-exact, N)[:N]          # hard proxy: the N closest rows
        for label, cand in (('hard', order),
                            ('mixed', np.unique(np.concatenate([order[:N // 10], rng.choice(len(X), N - N // 10, replace=False)])))):
            C = Xr[cand]
            sg = np.sign(C) @ Qr[qi]                       # the sign pass's scores (up to scale)
            tb = two_bit(C) @ Qr[qi]                       # the 2-bit pass's scores
            inset = np.isin(cand, GT[qi])
            for name, sc in (('sign', sg), ('2bit', tb)):
                rank = np.argsort(-sc)
                pos = np.nonzero(inset[rank])[0]           # ranks of the true neighbours in this pass
                res.setdefault((label, name), []).append((pos, inset.sum()))
    for (label, name), lst in sorted(res.items()):
        out = []
        for depth in (80, 160, 320, 640, 1280, 2560):
            hit = sum((p < depth).sum() for p, _ in lst); tot = sum(n for _, n in lst)
            out.append(f'{depth}:{hit / max(tot,1):.3f}')
        cover = sum(n for _, n in lst) / (10 * len(lst))
        print(f'N={N} {label:5s} {name:4s} (set holds {cover:.3f} of top-10)  share of the set\'s neighbours within depth  ' + ' '.join(out), flush=True)
