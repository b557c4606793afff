// The router's answer from its shards' answers: the exact top-k of the union, and what is
// missing when a shard did not answer (docs/sharded.md, "Queries").
//
// Exact because every shard ranks by the same distance: the same metric and, for the
// quantised kinds, the same seeded quantiser (the router gives every shard one collection
// config, and a shard refuses a config that differs from the one it holds). Each shard returns
// its own topK closest, so the k closest of the union are among them: sorting the union by
// distance and keeping k is the answer one index holding all the records would give. Ties in
// distance go to the lower shard number (each shard's list is already in its own order).

// answers: [{ shard, result: { matches, plan } }] in shard order -> { matches, plan }.
export function mergeTopK(answers, topK) {
  const all = [];
  let matching = 0;
  let total = 0;
  const strategies = {};
  for (const { shard, result } of answers) {
    result.matches.forEach((m, rank) => all.push({ m, shard, rank }));
    matching += result.plan.matching;
    total += result.plan.total;
    strategies[result.plan.strategy] = (strategies[result.plan.strategy] ?? 0) + 1;
  }
  all.sort((a, b) => a.m.distance - b.m.distance || a.shard - b.shard || a.rank - b.rank);
  return {
    matches: all.slice(0, topK).map((e) => e.m),
    // matching / total summed over the shards that answered; strategy: how many shards used
    // each plan ({ prefilter: 3, graph: 1 }).
    plan: { strategy: strategies, matching, total, shards: answers.length },
  };
}
