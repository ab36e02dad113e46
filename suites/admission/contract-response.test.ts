// The webhook contract rows of rows/contract/20-response.yaml (contract-cases.ts).
import { contractCases } from './contract-cases.ts';

contractCases('20-response.yaml');
