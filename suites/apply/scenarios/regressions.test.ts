// The scenarios of regressions.yaml (suites/apply/scenarios-suite.ts).
import { scenariosSuite } from '../scenarios-suite.ts';

scenariosSuite('regressions');
