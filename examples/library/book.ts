/**
 * The library bounded context's Book aggregate and its domain events. Domain events are
 * private to the context: they feed its own state and projections and evolve freely.
 * Other contexts only ever see the public contract (generated/), through the mapper.
 */
export type BookEvent =
  | { readonly type: 'BookAdded'; readonly title: string; readonly author: string; readonly isbn: string; readonly copies: number }
  | {
      readonly type: 'BookBorrowed';
      readonly copyId: string;
      readonly borrowerId: string;
      readonly borrowerName?: string;
      readonly at: string;
      readonly loanDays: number;
      readonly via: 'desk' | 'kiosk' | 'app';
    }
  | {
      readonly type: 'BookReturned';
      readonly copyId: string;
      readonly borrowerId: string;
      readonly at: string;
      readonly condition: 'good' | 'worn' | 'damaged';
      readonly lateFeeCents?: number;
      readonly currency?: string;
    }
  | { readonly type: 'BookLost'; readonly copyId: string; readonly reportedAt: string };

export interface BookState {
  readonly id: string;
  readonly title: string;
  readonly onLoan: ReadonlyMap<string, string>;
  readonly lost: ReadonlySet<string>;
}

export function evolve(state: BookState | undefined, event: BookEvent, id: string): BookState {
  const current = state ?? { id, title: '', onLoan: new Map(), lost: new Set() };
  switch (event.type) {
    case 'BookAdded':
      return { ...current, title: event.title };
    case 'BookBorrowed':
      return { ...current, onLoan: new Map(current.onLoan).set(event.copyId, event.borrowerId) };
    case 'BookReturned': {
      const onLoan = new Map(current.onLoan);
      onLoan.delete(event.copyId);
      return { ...current, onLoan };
    }
    case 'BookLost':
      return { ...current, lost: new Set(current.lost).add(event.copyId) };
  }
}

/** Commands decide which events happen, from the current state. */
export const decide = {
  borrow(
    state: BookState,
    copyId: string,
    borrowerId: string,
    at: Date,
    via: 'desk' | 'kiosk' | 'app',
    borrowerName?: string,
  ): BookEvent[] {
    if (state.onLoan.has(copyId)) throw new Error(`copy ${copyId} of ${state.title} is already on loan`);
    return [
      { type: 'BookBorrowed', copyId, borrowerId, at: at.toISOString(), loanDays: 21, via, ...(borrowerName ? { borrowerName } : {}) },
    ];
  },
  return(
    state: BookState,
    copyId: string,
    at: Date,
    condition: 'good' | 'worn' | 'damaged',
    lateFeeCents?: number,
    currency?: string,
  ): BookEvent[] {
    const borrowerId = state.onLoan.get(copyId);
    if (borrowerId === undefined) throw new Error(`copy ${copyId} of ${state.title} is not on loan`);
    return [
      {
        type: 'BookReturned',
        copyId,
        borrowerId,
        at: at.toISOString(),
        condition,
        ...(lateFeeCents ? { lateFeeCents, currency: currency ?? 'EUR' } : {}),
      },
    ];
  },
};
