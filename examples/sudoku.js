// A Sudoku solver: constraint propagation with bit sets, then depth-first search on
// the cell with the fewest candidates. Run it with `kiln run examples/sudoku.js`.
// It solves a few well-known puzzles, checks every solution, and prints the grids.

const PUZZLES = {
  // from Peter Norvig's "Solving Every Sudoku Puzzle"
  easy: "003020600900305001001806400008102900700000008006708200002609500800203009005010300",
  hard: "4.....8.5.3..........7......2.....6.....8.4......1.......6.3.7.5..2.....1.4......",
  // Arto Inkala's "world's hardest Sudoku" (2012)
  inkala: "8..........36......7..9.2...5...7.......457.....1...3...1....68..85...1..9....4..",
};

const ALL = 0x1ff; // candidates 1..9 as bits 0..8

/** Each cell's 20 peers: the other cells of its row, column and box. */
const PEERS = Array.from({ length: 81 }, (_, cell) => {
  const row = Math.floor(cell / 9), col = cell % 9;
  const boxRow = row - (row % 3), boxCol = col - (col % 3);
  const peers = new Set();
  for (let i = 0; i < 9; i++) {
    peers.add(row * 9 + i);
    peers.add(i * 9 + col);
    peers.add((boxRow + Math.floor(i / 3)) * 9 + boxCol + (i % 3));
  }
  peers.delete(cell);
  return [...peers];
});

const bitCount = (bits) => {
  let n = 0;
  for (; bits; bits &= bits - 1) n++;
  return n;
};
const digitOf = (bit) => 31 - Math.clz32(bit) + 1;

class Grid {
  constructor(candidates = new Uint16Array(81).fill(ALL)) {
    this.candidates = candidates;
  }

  static parse(text) {
    const grid = new Grid();
    [...text].forEach((ch, cell) => {
      if (ch >= "1" && ch <= "9" && !grid.assign(cell, 1 << (ch - 1))) {
        throw new Error(`contradiction at cell ${cell}`);
      }
    });
    return grid;
  }

  clone() {
    return new Grid(this.candidates.slice());
  }

  /** Keep only `bit` in `cell`; false on a contradiction. */
  assign(cell, bit) {
    let others = this.candidates[cell] & ~bit;
    while (others) {
      const drop = others & -others;
      if (!this.eliminate(cell, drop)) return false;
      others &= others - 1;
    }
    return true;
  }

  /** Remove `bit` from `cell` and propagate; false on a contradiction. */
  eliminate(cell, bit) {
    const before = this.candidates[cell];
    if (!(before & bit)) return true;
    const after = before & ~bit;
    this.candidates[cell] = after;
    if (after === 0) return false;
    if (bitCount(after) === 1) {
      for (const peer of PEERS[cell]) if (!this.eliminate(peer, after)) return false;
    }
    return true;
  }

  /** The solved grid, or null. Counts the search's guesses in `stats`. */
  search(stats) {
    let best = -1, fewest = 10;
    for (let cell = 0; cell < 81; cell++) {
      const n = bitCount(this.candidates[cell]);
      if (n > 1 && n < fewest) [best, fewest] = [cell, n];
    }
    if (best < 0) return this;
    for (let bits = this.candidates[best]; bits; bits &= bits - 1) {
      stats.guesses++;
      const next = this.clone();
      if (next.assign(best, bits & -bits)) {
        const solved = next.search(stats);
        if (solved) return solved;
      }
    }
    return null;
  }

  digits() {
    return Array.from(this.candidates, digitOf);
  }

  toString() {
    const d = this.digits();
    const rows = [];
    for (let r = 0; r < 9; r++) {
      if (r % 3 === 0 && r) rows.push("------+-------+------");
      const line = d.slice(r * 9, r * 9 + 9).map(String);
      rows.push(`${line.slice(0, 3).join(" ")} | ${line.slice(3, 6).join(" ")} | ${line.slice(6).join(" ")}`);
    }
    return rows.join("\n");
  }
}

/** Every row, column and box holds 1..9 once, and the givens are kept. */
function verify(puzzle, digits) {
  const units = [];
  for (let i = 0; i < 9; i++) {
    units.push(Array.from({ length: 9 }, (_, j) => i * 9 + j));
    units.push(Array.from({ length: 9 }, (_, j) => j * 9 + i));
    units.push(Array.from({ length: 9 }, (_, j) => (Math.floor(i / 3) * 3 + Math.floor(j / 3)) * 9 + (i % 3) * 3 + (j % 3)));
  }
  const complete = units.every((unit) => new Set(unit.map((c) => digits[c])).size === 9);
  const kept = [...puzzle].every((ch, c) => !(ch >= "1" && ch <= "9") || digits[c] === Number(ch));
  return complete && kept;
}

for (const [name, puzzle] of Object.entries(PUZZLES)) {
  const stats = { guesses: 0 };
  const solved = Grid.parse(puzzle).search(stats);
  if (!solved || !verify(puzzle, solved.digits())) throw new Error(`${name}: no valid solution`);
  console.log(`${name} (${stats.guesses} guesses):\n${solved}\n`);
}
