// The rows of escaping.yaml (suites/cel/rows-suite.ts).
import { rowsSuite } from '../rows-suite.ts';

rowsSuite('escaping');
