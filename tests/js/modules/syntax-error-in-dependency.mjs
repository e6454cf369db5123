import './_broken.mjs';
print('never printed');
// expect-error: SyntaxError
