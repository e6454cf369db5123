// TypeScript runs with its types stripped: annotations, interfaces, generics, overloads,
// abstract members and modifiers leave the JavaScript they annotate.
interface Named { readonly name: string }
type Pair<T> = [first: T, second: T];
declare const host: { log(s: string): void };

function swap<T>([a, b]: Pair<T>): Pair<T> { return [b, a]; }
print(swap<number>([1, 2]).join()); // expect: 2,1

function describe(value: string): string;
function describe(value: number): string;
function describe(value: unknown): string { return `${typeof value}:${value}`; }
print(describe(3), describe("x")); // expect: number:3 string:x

abstract class Animal implements Named {
  abstract readonly name: string;
  abstract sound(): string;
  declare legs: number;
  protected static count = 0;
  constructor() { Animal.count++; }
  speak(this: Animal): string { return `${this.name} says ${this.sound()}`; }
  static get created(): number { return Animal.count; }
}
class Dog extends Animal {
  readonly name = "Rex";
  private tricks?: string[];
  override sound(): string { return "woof"; }
}
const dog = new Dog();
print(dog.speak(), Animal.created, Object.keys(dog).join()); // expect: Rex says woof 1 name,tricks
print("legs" in dog); // expect: false

let maybe: Named | undefined = dog;
print(maybe!.name, (maybe as Dog).sound(), <Named>maybe === dog); // expect: Rex woof true
const settings = { retries: 3, verbose: false } satisfies Record<string, number | boolean>;
let retries: number;
retries! = settings.retries;
(retries as number) += 1;
print(retries); // expect: 4

const label = ((n: number, unit?: string): string => `${n}${unit ?? ""}`) as (n: number) => string;
print(label(5), label.name, label.length); // expect: 5 label 2
print(typeof host, typeof Named); // expect: undefined undefined
