print('before');
// expect: before
throw new RangeError('module failed');
// expect-error: RangeError: module failed
