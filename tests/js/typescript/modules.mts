// A TypeScript module: `import type` and imports used only as types load nothing.
import type { Shape } from './_shapes.ts';
import { area, Square, type Unit } from './_shapes.ts';
import { Options } from './_options.ts';

const opts: Options = { unit: "cm" };
const square: Shape = new Square(3);
const unit: Unit = opts.unit;
print(`${area(square)}${unit}`); // expect: 9cm
print((globalThis as { optionsLoaded?: boolean }).optionsLoaded); // expect: undefined
await Promise.resolve();
print("after await"); // expect: after await
