// doc2 server-side apply as named scenarios (scenarios/*.yaml, validated by
// scenarios.schema.json when a file loads; each table file is a test file of its own,
// scenarios/<name>.test.ts, so the files run side by side and a run can take one of them): one case per scenario at the level of the spec
// place it checks, and, where the scenario also expects what only Kubernetes shows (exact codes,
// 409 causes, fieldsV1 item keys), a `/kubernetes-shape` case at level BEYOND.
import { afterAll, beforeAll, describe } from 'vitest';
import { conformance } from '../../harness/src/case.ts';
import { useNamespace } from '../../harness/src/fixtures.ts';
import { session } from '../../harness/src/session.ts';
import { loadScenarios, twinPlace } from './scenario-files.ts';
import { runScenario } from './scenario-runner.ts';
import { defineWidget, deleteWidget, type WidgetType, widgetsUnavailable, widgetType } from './widget.ts';

/** The scenarios of one table file (`scenarios/<name>.yaml`). */
export function scenariosSuite(name: string): void {
  const scenarios = loadScenarios().filter((s) => s.file === `scenarios/${name}.yaml`);
  if (!scenarios.length) throw new Error(`suites/apply/scenarios/${name}.yaml holds no scenario`);
  describe(`apply: scenarios (scenarios/${name}.yaml)`, () => {
    const ns = useNamespace('ssa');
    const widget: WidgetType = widgetType('ssa');
    let defined = false;
    beforeAll(async () => {
      if (!scenarios.some((s) => s.kind === 'Widget' && !s.topology && !s.skip)) return;
      if (await widgetsUnavailable(session())) return;
      await defineWidget(session(), widget);
      defined = true;
    });
    afterAll(async () => {
      if (defined) await deleteWidget(session(), widget);
    });

    for (const sc of scenarios) {
      conformance(
        {
          id: sc.id,
          title: sc.title,
          doc: sc.doc ?? 2,
          section: sc.section,
          place: sc.place,
          specRules: sc.specRules,
          level: sc.level,
        },
        (t) => runScenario(sc, t, { ns: ns.name, widget, strict: sc.level === 'BEYOND' }),
        { timeout: 60_000 },
      );
      const twin = twinPlace(sc);
      if (twin)
        conformance(
          {
            id: `${sc.id}/kubernetes-shape`,
            title: `${sc.title}, with the codes, conflict causes and fieldsV1 keys Kubernetes answers`,
            doc: 2,
            section: twin.section,
            place: twin.place,
            specRules: twin.specRules,
            level: 'BEYOND',
          },
          (t) => runScenario(sc, t, { ns: ns.name, widget, strict: true }),
          { timeout: 60_000 },
        );
    }
  });
}
