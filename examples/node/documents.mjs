// A documents app on a Quiver collection: articles of two tenants (namespaces) with string ids
// and metadata, searched with a filter that is applied first, then edited and deleted.
//   node examples/node/documents.mjs
import { Quiver } from 'quiver-vector';

// A stand-in for an embedding model (use a real one: transformers.js, an embeddings API): the
// words of a text hashed into 256 dimensions, so that texts sharing words are close.
const DIM = 256;
function embed(text) {
  const v = new Float32Array(DIM);
  for (const word of text.toLowerCase().match(/[a-z]+/g) ?? []) {
    let h = 2166136261;
    for (let i = 0; i < word.length; i++) h = Math.imul(h ^ word.charCodeAt(i), 16777619);
    v[(h >>> 0) % DIM] += 1;
  }
  return v;
}

// The app's articles: tenant, id (slug), language, year, tags, title.
const articles = [
  ['acme', 'wasm-simd', 'en', 2024, 'wasm performance', 'SIMD in WebAssembly: vector search in the browser'],
  ['acme', 'edge-search', 'en', 2023, 'search edge', 'Vector search at the edge, inside the isolate'],
  ['acme', 'old-post', 'en', 2019, 'search', 'Full-text search in the browser before vectors'],
  ['acme', 'suche', 'de', 2024, 'search', 'Vektorsuche im Browser mit WebAssembly'],
  ['acme', 'draft-1', 'en', 2025, 'search wasm', 'Draft: search in the browser with wasm threads'],
  ['globex', 'g-search', 'en', 2024, 'search', 'Vector search in the browser for shops'],
].map(([tenant, slug, lang, year, tags, title]) => ({
  tenant,
  slug,
  title,
  lang,
  year,
  tags: tags.split(' '),
  draft: title.startsWith('Draft'),
}));
const q = await Quiver.init();
const docs = q.Collection.create({
  dim: DIM,
  metric: 'cosine',
  fields: { lang: 'string', year: 'number', tags: 'tags', draft: 'boolean' },
});
docs.upsert(
  articles.map(({ tenant, slug, title, ...meta }) => ({
    id: slug,
    values: embed(title),
    namespace: tenant,
    metadata: { title, ...meta },
  })),
);

// acme's published English articles since 2023 about search or wasm, nearest first.
const { matches, plan } = docs.query(embed('vector search in the browser'), {
  topK: 3,
  namespace: 'acme',
  filter: { lang: 'en', year: { $gte: 2023 }, draft: false, tags: { $in: ['search', 'wasm'] } },
  returnMetadata: true,
});
for (const m of matches) console.log(`${m.id.padEnd(12)} ${m.distance.toFixed(3)}  ${m.metadata.title}`);
console.log(`plan ${plan.strategy}: ${plan.matching} of ${plan.total} match`);

// insert() refuses an id that is there; upsert() replaces vector, metadata and namespace (here:
// the draft is published). Then one is deleted, and both are read back.
try {
  docs.insert([{ id: 'wasm-simd', values: embed('SIMD again') }]);
} catch (e) {
  console.log(`insert: ${e.code}`);
}
const [draft] = docs.getByIds(['draft-1']);
const title = 'Search in the browser with wasm threads';
docs.upsert([{ ...draft, values: embed(title), metadata: { ...draft.metadata, title, draft: false } }]);
docs.deleteByIds(['old-post']);
console.log(docs.getByIds(['draft-1', 'old-post']).map((r) => r && `${r.id}: ${r.metadata.title}`));
console.log(`${docs.size} articles, ${docs.memoryBytes} bytes`);
docs.dispose();
q.terminate();
