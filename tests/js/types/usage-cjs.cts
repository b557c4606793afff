// The CommonJS entry's types (js/main.d.cts), resolved through the "require" condition.
import quiver = require('quiver-vector');

export async function main(): Promise<number> {
  const q = await quiver.init({ variant: 'simd' });
  const index = new q.FlatIndex({ dim: 2 });
  index.add([1], [[0, 1]]);
  const loaded = await quiver.load(index.serialize());
  const docs = await quiver.Collection.create({ dim: 2, fields: { lang: 'string' } });
  docs.upsert([{ id: 'a', values: [0, 1], metadata: { lang: 'en' } }]);
  docs.dispose();
  const { QuiverError } = await quiver.esm();
  try {
    index.search([1], 1);
  } catch (e) {
    if (e instanceof QuiverError) return e.code.length;
  }
  return loaded.size;
}

// @ts-expect-error init() is async: its result has no FlatIndex before await
quiver.init().FlatIndex;
