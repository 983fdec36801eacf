import { describe, expect, it } from 'vitest';
import { owned, ownerOf } from './owners.js';

const names = Array.from({ length: 10_000 }, (_, i) => `m${i}`);

describe('ownerOf (rendezvous hashing)', () => {
  it('gives every machine exactly one owner, the same whatever order the boards are listed in', () => {
    const boards = ['a:8700', 'b:8700', 'c:8700'];
    for (const name of names.slice(0, 500)) {
      const owner = ownerOf(name, boards);
      expect(boards).toContain(owner);
      expect(ownerOf(name, [...boards].reverse())).toBe(owner);
    }
    expect(ownerOf('m1', [])).toBeNull();
  });

  it('spreads machines about evenly', () => {
    const boards = ['a:8700', 'b:8700', 'c:8700'];
    const counts = boards.map((b) => owned(b, names, boards).size);
    expect(counts.reduce((x, y) => x + y, 0)).toBe(names.length);
    for (const n of counts)
      expect(Math.abs(n - names.length / 3)).toBeLessThan(names.length * 0.05);
  });

  it("moves only the dead board's machines when one dies, and only the newcomer's share when one joins", () => {
    const three = ['a:8700', 'b:8700', 'c:8700'];
    const two = ['a:8700', 'c:8700'];
    for (const name of names) {
      const before = ownerOf(name, three);
      const after = ownerOf(name, two);
      if (before !== 'b:8700') expect(after).toBe(before);
    }
    const four = [...three, 'd:8700'];
    let moved = 0;
    for (const name of names) {
      const after = ownerOf(name, four);
      if (after !== ownerOf(name, three)) {
        expect(after).toBe('d:8700');
        moved += 1;
      }
    }
    expect(Math.abs(moved - names.length / 4)).toBeLessThan(names.length * 0.05);
  });

  it('a board that knows no live board but itself owns everything (a single board)', () => {
    expect(owned('solo', names.slice(0, 100), []).size).toBe(100);
  });
});
