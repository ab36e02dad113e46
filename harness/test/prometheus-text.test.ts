// The harness's reader of /metrics (the Prometheus text format).
import { describe, expect, it } from 'vitest';
import { parsePrometheusText } from '../src/prometheus-text.ts';

describe('parsePrometheusText', () => {
  it('reads samples with labels, escapes, special values, HELP and TYPE', () => {
    const e = parsePrometheusText(
      [
        '# HELP apiserver_requested_deprecated_apis [STABLE] Gauge of deprecated APIs that have been requested',
        '# TYPE apiserver_requested_deprecated_apis gauge',
        'apiserver_requested_deprecated_apis{group="flowcontrol.apiserver.orch.io",removed_release="1.29",resource="flowschemas",subresource="",version="v1beta2"} 1',
        'odd_metric{a="x\\"y\\\\z\\nw",b="c,d"} 2.5 1700000000000',
        'plain_total +Inf',
        'nan_value NaN',
        'nan_node Nan',
        'inf_lower -inf',
        '',
      ].join('\n'),
    );
    expect(e.type.get('apiserver_requested_deprecated_apis')).toBe('gauge');
    expect(e.help.get('apiserver_requested_deprecated_apis')).toMatch(/^\[STABLE\]/);
    expect(e.samples[0]).toEqual({
      name: 'apiserver_requested_deprecated_apis',
      labels: {
        group: 'flowcontrol.apiserver.orch.io',
        removed_release: '1.29',
        resource: 'flowschemas',
        subresource: '',
        version: 'v1beta2',
      },
      value: 1,
    });
    expect(e.samples[1]).toEqual({ name: 'odd_metric', labels: { a: 'x"y\\z\nw', b: 'c,d' }, value: 2.5 });
    expect(e.samples[2]!.value).toBe(Number.POSITIVE_INFINITY);
    expect(Number.isNaN(e.samples[3]!.value)).toBe(true);
    // Go's ParseFloat reads the special values in any letter case (prom-client writes Nan)
    expect(Number.isNaN(e.samples[4]!.value)).toBe(true);
    expect(e.samples[5]!.value).toBe(Number.NEGATIVE_INFINITY);
  });

  it('refuses a line it cannot read, naming it', () => {
    expect(() => parsePrometheusText('m{a=x} 1')).toThrow(/line 1: a malformed label/);
    expect(() => parsePrometheusText('ok 1\nm{a="x"}')).toThrow(/line 2: no value/);
    expect(() => parsePrometheusText('m one')).toThrow(/"one" is not a number/);
  });
});
