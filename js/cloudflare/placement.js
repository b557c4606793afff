// Where a record lives: the stable placement of ids (or namespaces) on the shards of a
// sharded collection (docs/sharded.md, "Placement").
//
// Rendezvous (highest-random-weight) hashing: a key goes to the shard whose weight
// mix(hash(key), shard) is largest. It is a pure function of the key and the shard count, the
// same in every router isolate and every release (the constants below are part of the
// format), and going from N to N + 1 shards moves only the keys the new shard wins — about
// 1 / (N + 1) of them — which is what keeps a re-shard (docs/sharded.md, "Re-sharding")
// a copy of a fraction of the data. O(N) per key; N is tens, not thousands.
//
// The key is typed: the string id 'doc-1' is "s:doc-1" and the integer id 7 is "n:7", since
// the collection keeps them apart too (the string '7' and the number 7 are two records).

// FNV-1a over the UTF-8 bytes of `text`, 32 bits.
function fnv1a(text) {
  let h = 0x811c9dc5;
  const bytes = new TextEncoder().encode(text);
  for (let i = 0; i < bytes.length; i++) h = Math.imul(h ^ bytes[i], 0x01000193);
  return h >>> 0;
}

// murmur3's 32-bit finaliser: spreads every input bit over the output.
function mix(h) {
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}

// The placement key of a record id: "s:<string>" or "n:<integer>".
export const idKey = (id) => (typeof id === 'string' ? `s:${id}` : `n:${id}`);

// The shard in [0, shards) that holds `key`.
export function shardOf(key, shards) {
  const h = fnv1a(key);
  let best = 0;
  let bestWeight = -1;
  for (let s = 0; s < shards; s++) {
    const w = mix(h ^ mix(s + 0x9e3779b9));
    if (w > bestWeight) {
      best = s;
      bestWeight = w;
    }
  }
  return best;
}
