// A shard's layout: which collection it belongs to, its number, the shard count and the
// collection every shard holds ({ name, shard, shards, collection }). The router sends it
// with every call; the shard stores it with its first write and refuses a call whose layout
// differs (LAYOUT_MISMATCH), so that a router with another shard count or another collection
// config is an error, never a silent misplacement (docs/sharded.md, "Re-sharding").

// JSON with the keys of every object sorted: the same text for the same layout, whatever
// order its options were written in.
export function canonicalJson(value) {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value && typeof value === 'object') {
    const keys = Object.keys(value)
      .filter((k) => value[k] !== undefined && value[k] !== null)
      .sort();
    return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson(value[k])}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

export const sameLayout = (a, b) => canonicalJson(a) === canonicalJson(b);
