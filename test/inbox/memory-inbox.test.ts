// The memory inbox through the exported inbox conformance suite. It records an id when the handler
// succeeded and has no database to roll a handler's write back, so that one case is skipped.
import { InMemoryInboxStore, type MemoryInboxTransaction } from '@keiyaku/runtime';
import { runInboxConformance } from '@keiyaku/runtime/testing';
import { afterEach, describe, expect, it } from 'vitest';

void runInboxConformance<MemoryInboxTransaction>(
  {
    name: 'memory',
    create: async ({ clock }) => {
      const effects: string[] = [];
      return {
        store: new InMemoryInboxStore({ clock }),
        write: (_tx, value) => void effects.push(value),
        read: async () => [...effects],
      };
    },
    skip: { "the handler's write rolls back with the inbox row": 'the memory inbox has no database transaction to roll back' },
  },
  { describe, it, afterEach, expect },
);
