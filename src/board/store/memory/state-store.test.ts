import { stateContract } from '../state-contract.case.js';
import { MemoryStore } from './state-store.js';

stateContract('memory', { fresh: async () => new MemoryStore(), reopen: null });
