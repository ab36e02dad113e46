// The watch table (cases/watch.yaml; suites/resource-versions/tables-suite.ts).
import { tableSuite } from '../tables-suite.ts';

tableSuite('watch');
