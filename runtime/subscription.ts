/** The belt lives in `belt/`; this path stays for the imports that name it. */
export * from './belt/subscription.js';
