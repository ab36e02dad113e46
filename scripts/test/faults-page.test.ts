// The fault meta test's result page (reports/faults-page.ts): each fault with its catchers, the
// ones that caught it in bold, its seconds, a fault that was not caught marked, the slowest first.
import { describe, expect, it } from 'vitest';
import { type FaultVerdict, renderFaultsPage } from '../../reports/faults-page.ts';

const verdict = (fault: string, seconds: number, over: Partial<FaultVerdict> = {}): FaultVerdict => ({
  fault,
  area: 'watch',
  breaks: 'doc1 § Watch: <events> in order',
  catchers: ['watch/law/order', 'watch/rows/'],
  caughtBy: ['watch/rows/bookmark'],
  strayFailures: [],
  alsoFailed: [],
  vanished: [],
  skippedRadius: [],
  proxyErrors: [],
  ok: true,
  seconds,
  ...over,
});

describe('faults page', () => {
  const page = renderFaultsPage({
    when: '2026-11-28T00:00:00Z',
    faults: 3,
    run: 2,
    ok: 1,
    seconds: 42,
    verdicts: [
      verdict('quick', 1.25),
      verdict('slow-and-loose', 30, { ok: false, caughtBy: [], strayFailures: ['crud/create/basic'] }),
    ],
  });

  it('lists every fault run with its seconds, the catcher that caught it in bold, the breaks text escaped', () => {
    expect(page).toContain('<code>quick</code>');
    expect(page).toContain('<td class="n">1.3</td>');
    expect(page).toContain('<b>watch/rows/</b>');
    expect(page).not.toContain('<b>watch/law/order</b>');
    expect(page).toContain('doc1 § Watch: &lt;events&gt; in order');
    expect(page).toContain('<span id="ok">1</span> caught by a named catcher and by nothing else; 1 not');
  });

  it('marks a fault not caught, with its stray failures, and lists the slowest run first', () => {
    expect(page).toMatch(
      /<tr class="bad"><td><code>slow-and-loose<\/code>.*no catcher failed; stray failures: crud\/create\/basic/,
    );
    const slowest = page.slice(page.indexOf('<ol id="slowest">'));
    expect(slowest.indexOf('slow-and-loose')).toBeLessThan(slowest.indexOf('quick'));
  });
});
