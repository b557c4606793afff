// Force-included when install.mjs compiles faiss-node against Debian's Faiss 1.7.3: faiss-node
// 0.5.1 is written for Faiss 1.7.4, which added the namespace-level alias faiss::idx_t (1.7.3 has
// only faiss::Index::idx_t, the same type). Nothing else differs in the API it uses.
#pragma once
#include <faiss/Index.h>

namespace faiss {
using idx_t = Index::idx_t;
}
