// The demo's dataset: vectors with structure, like text embeddings, so that a search shows what
// an index is for — neighbours share a topic. Each vector is one of `topics` unit directions
// (drawn with Zipf weights: a few topics are common, most are rare) plus anisotropic noise (a
// few dimensions carry most of it, as in real embeddings), normalised. Seeded: the same seed
// gives the same vectors.

// mulberry32: a small seeded PRNG, uniform in [0, 1).
function random(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function normalise(v, at, dim) {
  let s = 0;
  for (let d = 0; d < dim; d++) s += v[at + d] * v[at + d];
  const inv = 1 / Math.sqrt(s || 1);
  for (let d = 0; d < dim; d++) v[at + d] *= inv;
}

// { vectors: Float32Array(n * dim), topics: Uint32Array(n), draw() } — draw() gives one more
// vector of the same distribution (a "new document") and its topic, for searches.
export function embeddingLike(n, dim, seed = 1, topics = Math.max(8, Math.min(500, Math.round(n / 100)))) {
  const rand = random(seed);
  const gauss = () => Math.sqrt(-2 * Math.log(1 - rand())) * Math.cos(2 * Math.PI * rand());
  const centres = new Float32Array(topics * dim);
  for (let i = 0; i < centres.length; i++) centres[i] = gauss();
  for (let t = 0; t < topics; t++) normalise(centres, t * dim, dim);
  // Zipf weights over topics, as a cumulative table.
  const cumulative = new Float64Array(topics);
  let total = 0;
  for (let t = 0; t < topics; t++) cumulative[t] = total += 1 / (t + 1);
  const pick = () => {
    const u = rand() * total;
    let lo = 0,
      hi = topics - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (cumulative[mid] < u) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  };
  // Noise per dimension: the first dimensions carry most of it.
  const scale = new Float32Array(dim).map((_, d) => 0.9 / Math.sqrt(dim) / Math.sqrt((d + 1) / dim + 0.05));
  const fill = (out, at) => {
    const t = pick();
    for (let d = 0; d < dim; d++) out[at + d] = centres[t * dim + d] + scale[d] * gauss();
    normalise(out, at, dim);
    return t;
  };
  const vectors = new Float32Array(n * dim);
  const topicOf = new Uint32Array(n);
  for (let i = 0; i < n; i++) topicOf[i] = fill(vectors, i * dim);
  return {
    vectors,
    topics: topicOf,
    draw() {
      const v = new Float32Array(dim);
      return { vector: v, topic: fill(v, 0) };
    },
  };
}
