// Bounded cardinality of the per-application Prometheus series: past 2,000 distinct
// application/version/route sets, new ones are counted under `other`, so a flood of apps or
// versions cannot grow the scrape without bound; the counts themselves are never lost.
import { describe, expect, it } from 'vitest';
import { appRequestsTotal, observeAppRequest } from '../../src/monitoring/prometheus.ts';

describe('per-application Prometheus series', () => {
  it('keeps at most 2,000 label sets and counts the rest as other', async () => {
    const apps = 2_500;
    for (let i = 0; i < apps; i++) observeAppRequest(`app-${i}`, '1.0.0', '/toDos', 200, 0.004);
    observeAppRequest('app-0', '1.0.0', '/toDos', 500, 0.01);
    const values = (await appRequestsTotal.get()).values;
    const named = new Set(values.filter((v) => v.labels.application !== 'other').map((v) => `${v.labels.application} ${v.labels.version} ${v.labels.route}`));
    expect(named.size).toBe(2_000);
    const other = values.filter((v) => v.labels.application === 'other');
    expect(other.map((v) => [v.labels.version, v.labels.route, v.labels.status_class, v.value])).toEqual([['other', 'other', '2xx', apps - 2_000]]);
    // A known set keeps its own series, by status class.
    expect(values.find((v) => v.labels.application === 'app-0' && v.labels.status_class === '5xx')?.value).toBe(1);
    expect(values.reduce((sum, v) => sum + v.value, 0)).toBe(apps + 1);
  });
});
