// A name the imported module does not export is a SyntaxError before anything runs.
import { nothing } from './_more.mjs';
print('never printed');
// expect-error: SyntaxError: The requested module './_more.mjs' does not provide an export named 'nothing'
