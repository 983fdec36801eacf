import { MemoryHistoryStore } from './memory-store.js';
import { storeContract } from './store-contract.case.js';

storeContract('memory', async () => new MemoryHistoryStore());
