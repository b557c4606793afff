// The headers that make the page cross-origin isolated (COOP/COEP), so Quiver picks its threaded
// build: for `vite` (the dev server) and `vite preview`. (The README shows this file.)
const headers = { 'Cross-Origin-Opener-Policy': 'same-origin', 'Cross-Origin-Embedder-Policy': 'require-corp' };
export default { server: { headers }, preview: { headers } };
