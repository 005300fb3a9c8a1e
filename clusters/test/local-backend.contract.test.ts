import { createLocalBackend } from '../local/index.ts';
import { describeBackendContract } from './backend-contract.ts';

let block = 230;
describeBackendContract('local', () => createLocalBackend({ nodeCount: 2, addressBlock: block++ }));
