/** The contract core, now the folder `core/contract/`; this path keeps working for the modules that import it. */
export * from './contract/index.js';
