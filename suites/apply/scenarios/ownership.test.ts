// The scenarios of ownership.yaml (suites/apply/scenarios-suite.ts).
import { scenariosSuite } from '../scenarios-suite.ts';

scenariosSuite('ownership');
