// The scenarios of markers.yaml (suites/apply/scenarios-suite.ts).
import { scenariosSuite } from '../scenarios-suite.ts';

scenariosSuite('markers');
