// The webhook contract rows of rows/contract/30-failure.yaml (contract-cases.ts).
import { contractCases } from './contract-cases.ts';

contractCases('30-failure.yaml');
