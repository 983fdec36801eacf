import { storeContract } from '../history-contract.case.js';
import { MemoryHistoryStore } from './history-store.js';

storeContract('memory', async () => new MemoryHistoryStore());
