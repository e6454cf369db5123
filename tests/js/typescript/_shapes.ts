export interface Shape { side: number }
export type Unit = "cm" | "in";
export class Square implements Shape {
  side: number;
  constructor(side: number) { this.side = side; }
}
export function area(shape: Shape): number { return shape.side ** 2; }
