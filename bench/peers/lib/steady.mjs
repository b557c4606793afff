// The peers run's steady-state checks (bench/common/steady-state.mjs) over its results: every figure
// whose passes disagreed (measure.mjs records pass_check per row), and Quiver's wasm simd vs
// simd-mt single-query QPS on the same workload, configuration and parameter value.
import { checkVariants, warningsOf } from '../../common/steady-state.mjs';

// results: the run file's results (one entry per job x workload) -> { warnings, variant_checks }.
export function peersSteadyState(results) {
  const passWarnings = [],
    points = [];
  for (const r of results) {
    if (r.status !== 'ok') continue;
    const variant = r.adapter === 'quiver-wasm' ? r.options?.variant : null;
    for (const c of r.configs ?? []) {
      for (const row of c.rows ?? []) {
        const point = `${r.workload} ${c.config}${row.param ? ` ${row.param} ${row.value}` : ''}`;
        if (row.pass_check?.warning) passWarnings.push(`${r.job} on ${r.workload}: ${row.pass_check.warning}`);
        if (variant) points.push({ variant, key: point, qps: row.qps });
      }
    }
  }
  const variantChecks = checkVariants(points);
  return { warnings: [...passWarnings, ...warningsOf(variantChecks)], variant_checks: variantChecks };
}
