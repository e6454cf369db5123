print('dep start');
export const value = await new Promise((resolve) => Promise.resolve().then(() => resolve(42)));
print('dep end');
