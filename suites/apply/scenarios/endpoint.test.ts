// The scenarios of endpoint.yaml (suites/apply/scenarios-suite.ts).
import { scenariosSuite } from '../scenarios-suite.ts';

scenariosSuite('endpoint');
