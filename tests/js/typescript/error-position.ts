// An exception reports the line and column of the TypeScript source.
interface Order { id: number; items?: string[] }
function count(order: Order): number {
  return order.items!.length;
}
count({ id: 1 } as Order);
// expect-error: error-position.ts:4:23
