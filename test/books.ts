// The loan most tests publish: one book, one member, a copy id of the test's choosing.
import { BookBorrowed } from '../generated/index.js';

export const borrowed = (copyId: string) =>
  BookBorrowed.create({
    bookId: '6f1c2b8e-3a4d-4e5f-9a0b-1c2d3e4f5a6b',
    copyId,
    borrower: { memberId: 'M-1001' },
    borrowedAt: '2026-11-02T10:15:00Z',
    dueAt: '2026-11-23T10:15:00Z',
    channel: 'desk',
  });
