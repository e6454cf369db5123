export const extra = 'extra';
export default 'not re-exported by export *';
