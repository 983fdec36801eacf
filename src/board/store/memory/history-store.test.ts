import { storeChangesContract } from '../history-contract-changes.case.js';
import { storeRowsContract } from '../history-contract-rows.case.js';
import { MemoryHistoryStore } from './history-store.js';

const openStore = async () => new MemoryHistoryStore();
storeRowsContract('memory', openStore);
storeChangesContract('memory', openStore);
