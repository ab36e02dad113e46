// The get table (cases/get.yaml; suites/resource-versions/tables-suite.ts).
import { tableSuite } from '../tables-suite.ts';

tableSuite('get');
