// The scenarios of managed-fields.yaml (suites/apply/scenarios-suite.ts).
import { scenariosSuite } from '../scenarios-suite.ts';

scenariosSuite('managed-fields');
