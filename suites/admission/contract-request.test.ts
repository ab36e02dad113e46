// The webhook contract rows of rows/contract/10-request.yaml (contract-cases.ts).
import { contractCases } from './contract-cases.ts';

contractCases('10-request.yaml');
